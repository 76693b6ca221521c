import { type Command, InvalidArgumentError } from 'commander';
import {
  CONNECT_TOOL_IDS,
  connectRequestSchema,
  type ConnectFileChange,
  type ConnectToolId,
  type ConnectToolStatus,
} from '../../../contracts/connect.ts';
import { DEFAULT_HOST } from '../../../contracts/defaults.ts';
import { ConnectService } from '../../connect/connectService.ts';
import { openConfigStore } from '../../profiles/configStore.ts';
import { dataDirFor, defaultCliDeps, hintFor, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { portOption } from './portOption.ts';

interface ConnectOptions {
  dryRun?: boolean;
  undo?: boolean;
  forgetBackups?: boolean;
  import?: boolean;
  model?: string;
  port: number;
}

/**
 * `--model` as the window's request is checked (trimmed, one line, not empty): the CLI wrote what it was given, so a
 * pasted id's trailing space or line break reached the tool's file, and an empty one read as no --model at all.
 */
function parsedModel(text: string): string {
  const result = connectRequestSchema.shape.model.safeParse(text);
  if (result.success && result.data !== undefined) return result.data;
  const reason = result.error?.issues[0]?.message ?? 'invalid';
  throw new InvalidArgumentError(`${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`);
}

/**
 * `airlock connect [tool]`: writes a tool's own config file so it talks to Airlock with a client
 * token made for it (a backup first), previews that with --dry-run, puts the old file back with
 * --undo, and lists the tools without an argument. Diffs show secrets by their last four only.
 */
export function registerConnectCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('connect')
    .description('set up a coding tool to use Airlock by writing its own config file (no tool: list the tools)')
    .addArgument(program.createArgument('[tool]', 'the tool to set up').choices(CONNECT_TOOL_IDS))
    .option('--dry-run', 'show what would change, write nothing')
    .option('--undo', "put back the tool's files as they were before Airlock set it up (keeping later changes of others)")
    .option(
      '--forget-backups',
      "delete the tool's backups (they keep the values Airlock replaced, an old key among them); undo is then not possible",
    )
    .option('--import', "move the gateway key in the tool's file into the keychain as a profile first")
    .option('--model <id>', 'the model the tool should ask for (left as it is when absent)', parsedModel)
    .addOption(portOption('the port Airlock listens on'))
    .action((tool: ConnectToolId | undefined, options: ConnectOptions, command: Command) =>
      withCliErrors(command, deps, async () => {
        const dataDir = dataDirFor(command, deps);
        const store = openConfigStore(dataDir, { command: hintFor(command, deps) });
        try {
          const problem = store.problem();
          if (problem) throw new Error(problem);
          const service = new ConnectService({
            homeDir: deps.homedir,
            env: deps.env,
            dataDir,
            config: store,
            secrets: deps.secrets(dataDir),
            proxyUrl: () => `http://${DEFAULT_HOST}:${options.port}`,
            nowMs: deps.nowMs,
          });
          if (!tool) {
            for (const status of (await service.list()).tools) writeLine(deps.stdout, statusLine(status));
            writeLine(deps.stderr, `Set one up with \`${hintFor(command, deps)('connect <tool>')}\` (add --dry-run to preview).`);
            return;
          }
          const tokenName = await runForTool(service, tool, options, deps, hintFor(command, deps));
          const { activeProfileId, clientTokens } = store.snapshot();
          const followsActive = clientTokens.some((token) => token.name === tokenName && token.profileId === null);
          // A token that follows the active profile, with none active: each of the tool's requests is refused.
          if (followsActive && activeProfileId === null)
            writeLine(
              deps.stderr,
              `Next: no profile is active yet, so Airlock refuses the tool's requests: add one with \`${hintFor(command, deps)('profile add <id> --base-url <url> --activate')}\`` +
                ` (or serve a gateway for one run: \`${hintFor(command, deps)('serve --base-url <url>')}\` with AIRLOCK_API_KEY set).`,
            );
        } finally {
          store.close();
        }
      }),
    );
}

/** Sets up (or previews, or undoes) one tool; resolves to the client token its setup uses, null when nothing was set up. */
async function runForTool(
  service: ConnectService,
  tool: ConnectToolId,
  options: ConnectOptions,
  deps: CliDeps,
  hint: (args: string) => string,
): Promise<string | null> {
  if (options.forgetBackups) {
    const { removedBackups } = await service.forgetBackups(tool);
    writeLine(
      deps.stdout,
      removedBackups === 0 ? `${tool} has no backups.` : `Deleted ${removedBackups} backup(s) of ${tool}; its files stay as they are.`,
    );
    return null;
  }
  if (options.undo) {
    const undone = await service.undo(tool);
    for (const file of undone.restoredFiles) writeLine(deps.stdout, `Restored ${file}`);
    for (const file of undone.removedFiles) writeLine(deps.stdout, `Removed ${file} (it did not exist before)`);
    return null;
  }
  const request = { ...(options.model ? { model: options.model } : {}), ...(options.import ? { importKey: true } : {}) };
  if (options.dryRun) {
    const plan = await service.plan(tool, request);
    printChanges(plan.changes, deps);
    for (const note of plan.notes) writeLine(deps.stderr, note);
    writeLine(
      deps.stderr,
      `Dry run: nothing was written. The setup would use client token "${plan.tokenName}"${plan.tokenCreated ? ' (created when applied)' : ''}.`,
    );
    return null;
  }
  const applied = await service.apply(tool, request);
  printChanges(applied.changes, deps);
  for (const note of applied.notes) writeLine(deps.stderr, note);
  if (applied.importProfileId)
    writeLine(deps.stderr, `The gateway key is now in the OS keychain, in profile "${applied.importProfileId}".`);
  const token = `${applied.tokenCreated ? 'Created' : 'Used'} client token "${applied.tokenName}".`;
  writeLine(
    deps.stderr,
    applied.backupId === null
      ? `${token} Already set up: nothing was written.`
      : `${token} Backup ${applied.backupId}: undo with \`${hint(`connect ${tool} --undo`)}\`.`,
  );
  return applied.tokenName;
}

function printChanges(changes: readonly ConnectFileChange[], deps: CliDeps): void {
  for (const change of changes) {
    if (change.diff === '') writeLine(deps.stdout, `${change.path}: already set up, no change`);
    else deps.stdout.write(change.diff);
  }
}

function statusLine(status: ConnectToolStatus): string {
  const state = status.problem
    ? `cannot be edited: ${status.problem}`
    : status.connected
      ? `connected (client token "${status.tokenName}")`
      : status.detected
        ? 'found, not connected'
        : 'not found';
  const extras = [
    status.importCandidate
      ? `key for ${status.importCandidate.baseUrl} ending in ${status.importCandidate.keyLastFour} can be imported (--import)`
      : null,
    status.backups.length > 0
      ? `${status.backups.length} backup(s), --undo restores the last, --forget-backups deletes them (they keep the values Airlock replaced)`
      : null,
  ].filter((extra) => extra !== null);
  return [`${status.id.padEnd(12)}${state}`, `  ${status.files[0]}`, ...extras.map((extra) => `  ${extra}`)].join('\n');
}
