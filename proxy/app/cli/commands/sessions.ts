import type { Command } from 'commander';
import { DEFAULT_SESSION_PAGE_LIMIT, MAX_SESSION_PAGE_LIMIT, MAX_TURN_PAGE_LIMIT } from '../../../contracts/agentSessions.ts';
import type { RequestCursor } from '../../../contracts/log.ts';
import { sessionPage } from '../../sessions/sessionList.ts';
import { sessionTimeline } from '../../sessions/sessionTimeline.ts';
import { sessionListText, timelineText } from '../../sessions/timelineText.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { defaultCliDeps, hintFor, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { openLogWithSecrets } from './logSecrets.ts';

function limitOf(text: string): number {
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SESSION_PAGE_LIMIT)
    throw new CommandLineError(`--limit "${text}": use a whole number from 1 to ${MAX_SESSION_PAGE_LIMIT}`);
  return limit;
}

/**
 * `airlock sessions [id]`: the agent sessions in the log, newest activity first, or one session's
 * timeline. Reads the log file directly (read-only), so it works beside a running Airlock.
 */
export function registerSessionsCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('sessions')
    .description("list agents' sessions in the request log, or show one session's turns (what each added, what the model answered)")
    .argument('[id]', 'a session id from the list: show its timeline')
    .option('--limit <n>', 'sessions to list, newest activity first', String(DEFAULT_SESSION_PAGE_LIMIT))
    .action((id: string | undefined, flags: { limit: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const limit = limitOf(flags.limit);
        const { log, knownSecrets } = await openLogWithSecrets(command, deps);
        try {
          if (id === undefined) {
            const page = await sessionPage(log.sessions, { limit });
            for (const line of sessionListText(page.items)) writeLine(deps.stdout, line);
            if (page.nextCursor) writeLine(deps.stderr, `Showing the ${limit} latest sessions: --limit shows more.`);
            return;
          }
          const source = { sessions: log.sessions, getRequest: (requestId: string) => log.queries.getRequest(requestId) };
          let cursor: RequestCursor | null = null;
          let first = true;
          do {
            const result = await sessionTimeline(source, id, {
              limit: MAX_TURN_PAGE_LIMIT,
              knownSecrets,
              ...(cursor ? { afterCursor: cursor } : {}),
            });
            if (result === null)
              throw new Error(
                `no session ${id} in the log: \`${hintFor(command, deps)('sessions')}\` lists the ids (retention may have removed it)`,
              );
            const lines = timelineText(result.timeline.session, result.timeline.turns);
            // Later pages continue the same timeline: only the first carries the heading.
            for (const line of first ? lines : lines.slice(2)) writeLine(deps.stdout, line);
            first = false;
            cursor = result.nextCursor;
          } while (cursor !== null);
        } finally {
          log.close();
        }
      }),
    );
}
