import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import type { BodyTextResponse } from '../../../contracts/requests.ts';
import { formatCredits } from '../../../contracts/amounts.ts';
import { withoutGatewayKey } from '../../../core/apiKey.ts';
import type { ReplayRequest, ReplayResponse, ReplaySide } from '../../../contracts/replay.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { callControlApi, controlReachFor, type ControlReach } from './controlApi.ts';
import { portOption } from './portOption.ts';

interface ReplayFlags {
  port: number;
  edit?: boolean;
  bodyFile?: string;
  profile?: string;
  idempotencyKey?: string;
  json?: boolean;
}

const INSTEAD = 'Replay the request from the window instead.';

/** The logged body after the user's editor ($VISUAL, else $EDITOR, else vi) had it, as git runs its editor. */
function editInEditor(deps: CliDeps, text: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'airlock-replay-'));
  const file = path.join(directory, 'body.json');
  try {
    // 0600: the body holds a prompt.
    writeFileSync(file, text, { mode: 0o600 });
    const editor = deps.env.VISUAL || deps.env.EDITOR || 'vi';
    const env = withoutGatewayKey({ ...process.env, ...deps.env });
    const run = spawnSync(`${editor} "${file}"`, { shell: true, stdio: 'inherit', env });
    if (run.status !== 0) throw new Error(`the editor (${editor}) exited with ${run.status ?? run.signal}; nothing was sent.`);
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function bodyToSend(deps: CliDeps, reach: ControlReach, id: string, flags: ReplayFlags): Promise<string | undefined> {
  if (flags.bodyFile !== undefined) {
    if (flags.edit) throw new CommandLineError('--edit and --body-file both give the body: use one.');
    return readFileSync(flags.bodyFile === '-' ? 0 : path.resolve(deps.cwd, flags.bodyFile), 'utf8');
  }
  if (!flags.edit) return undefined;
  const logged = await callControlApi<BodyTextResponse>(reach, {
    port: flags.port,
    method: 'GET',
    path: `/requests/${encodeURIComponent(id)}/body/request`,
    instead: INSTEAD,
    timeoutMs: 10_000,
  });
  const edited = editInEditor(deps, logged.text);
  // Unchanged, it is the logged body: the proxy refuses one the log cut, and says why.
  return edited === logged.text ? undefined : edited;
}

const orDash = (value: string | number | null): string => (value === null ? '-' : String(value));
const signed = (value: number | null, unit = ''): string => (value === null || value === 0 ? '' : `${value > 0 ? '+' : ''}${value}${unit}`);

function signedCredits(value: number | null): string {
  return value === null || value === 0 ? '' : `${value > 0 ? '+' : '-'}${formatCredits(Math.abs(value))}`;
}

/** No usage means no model answered: no cost at all, rather than "unpriced". */
function costText(side: ReplaySide): string {
  return side.costCredits === null && side.inputTokens === null ? '-' : formatCredits(side.costCredits);
}

function durationText(ms: number | null): string {
  return ms === null ? '-' : `${Math.round(ms)} ms`;
}

function statusText(side: ReplaySide): string {
  return side.errorClass === null ? orDash(side.status) : `${orDash(side.status)} ${side.errorClass}`;
}

function tokensText(value: number | null, side: ReplaySide): string {
  return value === null ? '-' : `${value}${side.usageEstimated ? ' (est.)' : ''}`;
}

/** The comparison as the terminal shows it: one row per figure, then both answers. */
export function formatReplay(answer: ReplayResponse): string[] {
  const { original, replay, difference } = answer;
  const rows: [string, string, string, string][] = [
    ['', 'original', 'replay', 'change'],
    ['request', original.id, replay.id, answer.edited ? 'body edited' : ''],
    ['status', statusText(original), statusText(replay), difference.statusChanged ? 'changed' : ''],
    ['model', orDash(original.model), orDash(replay.model), original.model === replay.model ? '' : 'changed'],
    ['input tokens', tokensText(original.inputTokens, original), tokensText(replay.inputTokens, replay), signed(difference.inputTokens)],
    [
      'output tokens',
      tokensText(original.outputTokens, original),
      tokensText(replay.outputTokens, replay),
      signed(difference.outputTokens),
    ],
    ['cost', costText(original), costText(replay), signedCredits(difference.costCredits)],
    [
      'duration',
      durationText(original.durationMs),
      durationText(replay.durationMs),
      signed(difference.durationMs === null ? null : Math.round(difference.durationMs), ' ms'),
    ],
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = [`Replayed ${answer.replayOf} as ${answer.replayId} through profile "${answer.profileId}".`, ''];
  for (const row of rows)
    lines.push(
      row
        .map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell))
        .join('  ')
        .trimEnd(),
    );
  lines.push('', `Answer (original):`, original.answerText ?? original.errorMessage ?? '(none)', '');
  lines.push(`Answer (replay)${difference.answerChanged ? '' : ', the same'}:`, replay.answerText ?? replay.errorMessage ?? '(none)');
  return lines;
}

/**
 * `airlock replay <id>`: sends a logged request again through the running Airlock (its budgets,
 * idempotency and key injection, as any request), optionally edited, and prints both answers.
 */
export function registerReplayCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('replay <request-id>')
    .description('send a logged request again through the running Airlock, optionally edited, and compare the answers')
    .option('--edit', 'edit the logged body in $VISUAL or $EDITOR before sending')
    .option('--body-file <file>', 'send this body instead of the logged one (- reads stdin)')
    .option('--profile <id>', "send through this profile instead of the original's")
    .option('--idempotency-key <key>', 'the key an image or video creation is replayed under (a repeat with it is answered once)')
    .option('--json', 'print the comparison as JSON')
    .addOption(portOption('the port the running Airlock listens on'))
    .action((id: string, flags: ReplayFlags, command: Command) =>
      withCliErrors(command, deps, async () => {
        const reach = controlReachFor(command, deps);
        const body = await bodyToSend(deps, reach, id, flags);
        const request: ReplayRequest = {
          ...(body === undefined ? {} : { body }),
          ...(flags.profile ? { profileId: flags.profile } : {}),
          ...(flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {}),
        };
        const answer = await callControlApi<ReplayResponse>(reach, {
          port: flags.port,
          method: 'POST',
          path: `/requests/${encodeURIComponent(id)}/replay`,
          body: request,
          instead: INSTEAD,
        });
        if (flags.json) writeLine(deps.stdout, JSON.stringify(answer, null, 2));
        else for (const line of formatReplay(answer)) writeLine(deps.stdout, line);
      }),
    );
}
