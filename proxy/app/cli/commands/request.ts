import type { Command } from 'commander';
import { requestText } from '../requestText.ts';
import { defaultCliDeps, hintFor, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { CLI_COMMAND } from '../../../contracts/cli.ts';
import { openLogWithSecrets } from './logSecrets.ts';

/**
 * `airlock request <id> [--json]`: one logged request, with the way it took (fallback steps, pool
 * keys by label, replay links). Reads the log file directly (read-only), like `airlock sessions`
 * and `airlock export`, so it works beside a running Airlock and when none runs.
 */
export function registerRequestCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('request')
    .description('show one logged request: status, model, profile, duration, cost, its fallback chain, the pool keys it used, its replays')
    .argument('<id>', `the request id (x-airlock-request-id on every answer; the window and \`${CLI_COMMAND} export\` show it)`)
    .option('--json', 'print the logged row as JSON (bodies left out) with the ids of its replays')
    .action((id: string, flags: { json?: boolean }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const { log } = await openLogWithSecrets(command, deps);
        try {
          const detail = log.queries.getRequest(id);
          if (detail === null)
            throw new Error(
              `no request ${id} in the log: \`${hintFor(command, deps)('export requests --format csv')}\` lists the ids (retention may have removed it)`,
            );
          const replayIds = log.queries.replaysOf(id);
          if (flags.json) writeLine(deps.stdout, JSON.stringify({ ...detail.row, replayIds }, null, 2));
          else for (const line of requestText(detail.row, replayIds, hintFor(command, deps))) writeLine(deps.stdout, line);
        } finally {
          log.close();
        }
      }),
    );
}
