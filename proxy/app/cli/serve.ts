import { flushCompileCache } from 'node:module';
import { constants } from 'node:os';
import { pruneStaleCompileCaches } from './compileCache.ts';
import type { Command } from 'commander';
import { normalizeBaseUrl } from '../../core/baseUrl.ts';
import { startAirlock, type Airlock } from '../startAirlock.ts';
import type { RequestLogStatus } from '../../contracts/log.ts';
import type { StopReport } from '../../forward/shutdown.ts';
import { PortBlockedError, PortInUseError } from '../../http/listenRefusal.ts';
import { portBlockedMessage, portTakenMessage } from './portTaken.ts';
import { describeKeyStatus, type KeyStatus } from '../secrets/keyCache.ts';
import { API_KEY_ENV_VAR } from '../secrets/envKeySource.ts';
import { UnscopedKeyError } from '../secrets/dataDirSecrets.ts';
import { COMMAND_LINE_PROFILE_ID } from '../configOverlay.ts';
import { keyAccountsOf } from '../../contracts/keyPool.ts';
import type { Profile } from '../../contracts/profile.ts';
import { dataDirFor, defaultCliDeps, type CliDeps } from './commands/cliContext.ts';
import { dataDirArgument as dataDirArgumentOf } from '../dataDir.ts';
import { portOption } from './commands/portOption.ts';
import { watchNpmParent } from './npmParentWatch.ts';
import { type CommandHint, commandHint, shellOf } from '../../contracts/cli.ts';

interface ServeOptions {
  port: number;
  baseUrl?: string;
  profile?: string;
}

/** How long a stop waits for streams in flight before it cuts them. */
const DRAIN_ON_STOP_MS = 5_000;

/** How the run was started, as far as the commands its start lines suggest must repeat it. */
export interface ServeCommandLine {
  /** The data directory to name in each suggested command, or null for the default one. */
  dataDirArgument: string | null;
}

/** The served profile's key as the start lines say it: with the way to give it one when it has none. */
function keyText(airlock: Airlock, profile: Profile, status: KeyStatus, command: (args: string) => string): string {
  const described = describeKeyStatus(status);
  if (status.set) return described;
  const unread = airlock.keys.unreadProblem(keyAccountsOf(profile));
  if (unread instanceof UnscopedKeyError) return 'not set for this data directory: see the note below';
  if (unread !== null) return 'not read yet: see the note below';
  if (profile.id === COMMAND_LINE_PROFILE_ID)
    return `${described}: a --base-url run takes it from ${API_KEY_ENV_VAR} only; set it and start again`;
  const keyCommand = profile.keyPool === undefined ? `key set ${profile.id}` : `key list ${profile.id}`;
  return `${described}: \`${command(keyCommand)}\`, or ${API_KEY_ENV_VAR} for this run`;
}

/**
 * How a paused `airlock serve` is resumed: it has no tray, and its window is a browser tab only
 * after `airlock window`, so the command comes first.
 */
export function headlessResumeWay({ runningCommand }: CommandHint): string {
  return `with \`${runningCommand('resume')}\`, or in the window's status bar (\`${runningCommand('window')}\` prints a sign-in link)`;
}

export function startupLines(airlock: Airlock, commandLine: ServeCommandLine): string[] {
  const { command } = commandHint(commandLine.dataDirArgument, { shell: shellOf(process.platform) });
  const snapshot = airlock.config.snapshot();
  const active = snapshot.profiles.find((profile) => profile.id === snapshot.activeProfileId);
  const url = `http://127.0.0.1:${airlock.proxy.port}`;
  const lines = [
    `Airlock is serving on ${url}`,
    `  OpenAI-style base URL (OpenAI SDK, Codex, Cline, Continue, aider): ${url}/v1`,
    `  Anthropic-style base URL (Claude Code, Anthropic SDK):             ${url}`,
    active
      ? `  Active profile: ${active.id} -> ${active.baseUrl} (key ${keyText(airlock, active, airlock.keys.keyStatus(active.id, active.keyPool), command)})`
      : `  No active profile yet: \`${command('profile add <id> --base-url <url> --activate')}\`, then \`${command('key set <id>')}\`.`,
  ];
  if (snapshot.settings.requireClientToken) {
    lines.push(
      snapshot.clientTokens.length > 0
        ? `  Clients authenticate with an Airlock client token (${snapshot.clientTokens.map((token) => token.name).join(', ')}) as their API key.`
        : `  Clients need an Airlock client token as their API key: create one with \`${command('token create <name>')}\`.`,
    );
  }
  const another = airlock.control.linksFromCli()
    ? `\`${command('window')}\` prints another`
    : `without a keychain, restart \`${command('serve')}\` for another`;
  lines.push(`  Window (opens signed in; the link works once, for 2 minutes, ${another}): ${airlock.control.createLoginUrl()}`);
  for (const notice of airlock.notices) lines.push(`  Note: ${notice}`);
  return lines;
}

/** What a stop did to the requests still running, and what the log could not record, when either is worth saying. */
export function stopLines(report: StopReport, logStatus: Pick<RequestLogStatus, 'unwritten' | 'reason'>): string[] {
  const lines: string[] = [];
  if (report.endedRequests > 0) {
    lines.push(
      `Ended ${report.endedRequests} request(s) still running after the wait: each got an error (streams an error event) and is logged.`,
    );
  }
  if (report.cutAnswers > 0) {
    lines.push(
      `${report.cutAnswers} answer(s) were cut: their clients did not read the rest within the wait, so they see a broken connection.`,
    );
  }
  if (report.unfinishedRequests > 0) {
    lines.push(`${report.unfinishedRequests} request(s) had not finished their accounting: they are marked interrupted at the next start.`);
  }
  if (logStatus.unwritten !== null && logStatus.reason !== null)
    lines.push(`Stopped with requests missing from the log. ${logStatus.reason}`);
  return lines;
}

/**
 * Signals after the first that still let the stop finish. `npm run serve` and `npx airlock serve`
 * run Airlock in the terminal's process group and npm forwards the SIGINT it gets itself, so one
 * Ctrl-C arrives twice: only the signal after that repeat stops at once.
 */
const REPEATS_WHILE_STOPPING = 1;

/**
 * The first SIGINT or SIGTERM stops with the drain; a repeat says it is stopping; the next ends the
 * process at once. Started by npm, the end of npm stops it as a first signal does (npmParentWatch.ts).
 */
function stopOnSignals(airlock: Airlock, deps: CliDeps, parentPidAtStart: number): void {
  let signalsSeen = 0;
  const stopWithDrain = (): void => {
    deps.stderr.write(`Stopping: letting streams in flight finish (up to ${DRAIN_ON_STOP_MS / 1000} s)...\n`);
    airlock.stop({ drainMs: DRAIN_ON_STOP_MS }).then(
      (report) => {
        for (const line of stopLines(report, airlock.log.status())) deps.stderr.write(`${line}\n`);
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    signalsSeen += 1;
    if (signalsSeen === 1) {
      stopWatchingParent();
      stopWithDrain();
      return;
    }
    if (signalsSeen <= 1 + REPEATS_WHILE_STOPPING) {
      deps.stderr.write('Still stopping: send the signal (Ctrl-C) again to stop at once, cutting what is still running.\n');
      return;
    }
    deps.stderr.write('Stopped at once: requests still running were cut; the log marks them interrupted at the next start.\n');
    // As a shell reports a process the signal ended.
    process.exit(128 + constants.signals[signal]);
  };
  const stopWatchingParent = watchNpmParent({
    env: deps.env,
    parentPidAtStart,
    parentPid: () => process.ppid,
    onParentGone: () => {
      signalsSeen += 1;
      deps.stderr.write('npm, which started Airlock, has ended (it does not pass a SIGTERM on to Airlock).\n');
      stopWithDrain();
    },
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** A start that fails is one clear line and exit code 1; usage help would only bury the cause. */
function failStart(deps: CliDeps, message: string): void {
  deps.stderr.write(`airlock: ${message}\n`);
  process.exitCode = 1;
}

export function registerServeCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('serve')
    .description('run the proxy on 127.0.0.1 without the desktop window')
    .addOption(portOption('port to listen on (clients keep it in their config)'))
    .option('--base-url <url>', 'serve a gateway for this run only (key from AIRLOCK_API_KEY), without a saved profile')
    .option('--profile <id>', 'serve this profile instead of the active one')
    .action(async (options: ServeOptions, command: Command) => {
      const parentPidAtStart = process.ppid;
      const dataDir = dataDirFor(command, deps);
      let commandLineBaseUrl: string | undefined;
      if (options.baseUrl !== undefined) {
        // --base-url serves a profile of its own for the run: the one --profile names would silently not be served.
        if (options.profile !== undefined) command.error('give --base-url <url> or --profile <id>, not both');
        const normalized = normalizeBaseUrl(options.baseUrl);
        if (!normalized.ok) command.error(`--base-url: ${normalized.reason}`);
        if (normalized.warning) deps.stderr.write(`warning: ${normalized.warning}\n`);
        commandLineBaseUrl = normalized.baseUrl;
      }
      const dataDirArgument = dataDirArgumentOf(dataDir, deps);
      let airlock: Airlock;
      try {
        airlock = await startAirlock({
          dataDir,
          port: options.port,
          env: deps.env,
          // In the CLI's helper process: a keychain call that hangs then cannot keep Ctrl-C from stopping Airlock.
          secrets: deps.secrets(dataDir),
          resumeWay: headlessResumeWay,
          dataDirArgument,
          ...(options.profile ? { profileId: options.profile } : {}),
          ...(commandLineBaseUrl ? { commandLineBaseUrl } : {}),
        });
      } catch (error) {
        if (error instanceof PortInUseError) return failStart(deps, await portTakenMessage(error, dataDirArgument));
        if (error instanceof PortBlockedError) return failStart(deps, portBlockedMessage(error, dataDirArgument));
        return failStart(deps, error instanceof Error ? error.message : String(error));
      }
      for (const line of startupLines(airlock, { dataDirArgument })) deps.stdout.write(`${line}\n`);
      // What compiled at start goes to the compile cache now, not only at a clean exit (compileCache.ts).
      flushCompileCache();
      pruneStaleCompileCaches(process.env);
      stopOnSignals(airlock, deps, parentPidAtStart);
    });
}
