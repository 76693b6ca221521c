import { CLI_COMMAND } from '../../proxy/contracts/cli.ts';
import type { StartupProblem } from './appState.ts';

/**
 * The app's lifecycle decisions: what closing, quitting, a second launch and a failed start do.
 * The proxy is the product and the window only a view of it, so closing the window never stops it.
 */

/** How long quitting waits for in-flight requests (streams included) before stopping anyway. */
export const QUIT_DRAIN_MS = 5_000;

export function decideWindowClose(appIsQuitting: boolean): 'hide' | 'close' {
  return appIsQuitting ? 'close' : 'hide';
}

/** Zero when nothing is in flight, so an idle app quits at once. */
export function quitDrainMs(inFlightCount: number, maxDrainMs: number = QUIT_DRAIN_MS): number {
  return inFlightCount > 0 ? maxDrainMs : 0;
}

export interface DrainThenQuitDeps {
  inFlightCount(): number;
  stop(drainMs: number): Promise<void>;
  tell(title: string, body: string): void;
  quit(): void;
}

/**
 * The first quit: the requests in flight get up to QUIT_DRAIN_MS to finish (the user is told, and
 * that a second quit does not wait), then the app quits whatever stopping the proxy did: a stop
 * that failed must not leave a running app whose proxy is half gone.
 */
export async function drainThenQuit(deps: DrainThenQuitDeps): Promise<void> {
  const inFlight = deps.inFlightCount();
  if (inFlight > 0)
    deps.tell(
      'Airlock is quitting',
      `Finishing ${inFlight} request${inFlight === 1 ? '' : 's'} in flight (at most ${QUIT_DRAIN_MS / 1000} s). Quit again to stop them now.`,
    );
  try {
    await deps.stop(quitDrainMs(inFlight));
  } catch (error) {
    console.error('[airlock] stopping the proxy failed:', error instanceof Error ? error.message : 'unknown error');
  } finally {
    deps.quit();
  }
}

export type WindowPresence = 'none' | 'hidden' | 'minimized' | 'visible';

/** A second launch (or "Open Airlock" in the tray) brings the one window forward. */
export function secondInstanceSteps(presence: WindowPresence): ('create' | 'restore' | 'show' | 'focus')[] {
  switch (presence) {
    case 'none':
      return ['create', 'show', 'focus'];
    case 'hidden':
      return ['show', 'focus'];
    case 'minimized':
      return ['restore', 'focus'];
    case 'visible':
      return ['focus'];
  }
}

interface ErrorFacts {
  name: string;
  code: string;
  message: string;
}

function errorFacts(error: unknown): ErrorFacts {
  if (typeof error !== 'object' || error === null) return { name: '', code: '', message: String(error) };
  const record = error as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { name: text(record.name), code: text(record.code), message: text(record.message) };
}

const KEYCHAIN_LOCKED_PATTERN = /locked|user (canceled|cancelled)|interaction is not allowed|dismissed/i;
const KEYCHAIN_MISSING_PATTERN = /secret ?service|org\.freedesktop\.secrets|libsecret|d-?bus|keychain|credential manager/i;

/**
 * Sorts a start-up failure into what the user can fix. The message kept is the error's own (the
 * proxy and the stores never put keys in messages); it is only shown, never logged here.
 */
export function classifyStartupError(error: unknown, port: number): StartupProblem {
  const facts = errorFacts(error);
  if (facts.name === 'PortInUseError' || facts.code === 'EADDRINUSE') {
    return { kind: 'port_in_use', detail: `port ${port} on 127.0.0.1 is already in use` };
  }
  // By name only: EACCES alone may be a file's (the data directory's), and startServer names the port's (listenRefusal.ts).
  if (facts.name === 'PortBlockedError') return { kind: 'port_blocked', detail: `port ${port} on 127.0.0.1 is blocked or reserved` };
  if (facts.name === 'DataDirInUseError') return { kind: 'data_dir_in_use', detail: 'another Airlock is running with the same data' };
  // Its message names the damaged file and the directory to move it out of.
  if (facts.name === 'RequestLogDamagedError') return { kind: 'log_damaged', detail: facts.message.replace(/\.$/, '') };
  // A sound log that cannot be opened now (a full disk, permissions): its message names the file, cause and fix.
  if (facts.name === 'RequestLogUnreadableError') return { kind: 'log_unreadable', detail: facts.message.replace(/\.$/, '') };
  if (KEYCHAIN_MISSING_PATTERN.test(facts.message) || facts.name.startsWith('Keychain') || facts.name.startsWith('SecretStore')) {
    if (KEYCHAIN_LOCKED_PATTERN.test(facts.message)) return { kind: 'keychain_locked', detail: 'the OS keychain is locked' };
    return { kind: 'keychain_unavailable', detail: 'no OS keychain is available' };
  }
  return { kind: 'unknown', detail: facts.message || 'the proxy could not start' };
}

export interface StartupProblemView {
  title: string;
  detail: string;
  fix: string;
}

/** What the window and the notification say for a failed start: the cause and the fix. */
export function startupProblemView(problem: StartupProblem, port: number): StartupProblemView {
  switch (problem.kind) {
    case 'port_in_use':
      return {
        title: `Port ${port} is taken`,
        detail: `Another program (or another Airlock, e.g. \`${CLI_COMMAND} serve\`) is listening on 127.0.0.1:${port}. Airlock never moves to another port silently, because your clients are configured with this one.`,
        fix: `Stop the other program (find it with \`lsof -i :${port}\` on macOS/Linux or \`netstat -ano | findstr :${port}\` on Windows), then quit and start Airlock again.`,
      };
    case 'port_blocked':
      return {
        title: `Port ${port} is blocked`,
        detail: `The system refused Airlock port ${port} on 127.0.0.1, even if no program listens there: on Windows, Hyper-V, WSL 2 and Docker reserve ranges of ports (they can move after a reboot), and a program can hold a port for itself alone.`,
        fix: `On Windows, run \`netsh int ipv4 show excludedportrange protocol=tcp\` to see whether ${port} is in a reserved range; if so, \`net stop winnat\` then \`net start winnat\` in an administrator terminal often frees it. Or start Airlock with another port in the AIRLOCK_PORT environment variable and connect your tools again (\`${CLI_COMMAND} connect <tool>\` writes the port it listens on).`,
      };
    case 'data_dir_in_use':
      return {
        title: 'Another Airlock is running',
        detail: `Another Airlock, most likely \`${CLI_COMMAND} serve\` in a terminal, is running with the same profiles and request log. Two at once would both write the log, and this one would mark the other's requests as interrupted.`,
        fix: 'Stop the other one (Ctrl+C in its terminal, or quit it), then quit and start Airlock again.',
      };
    case 'log_damaged':
      return {
        title: 'The request log is damaged',
        detail: problem.detail,
        fix: 'Move the files it names out of the data directory (or delete them), then quit and start Airlock again: it starts a fresh log.',
      };
    case 'log_unreadable':
      return {
        title: 'The request log cannot be opened',
        detail: problem.detail,
        fix: 'Do what the message says (free space on that disk, or give your user access to the data directory), then quit and start Airlock again. The log is left as it was.',
      };
    case 'keychain_locked':
      return {
        title: 'The keychain is locked',
        detail: 'Airlock keeps gateway keys only in the OS keychain and cannot read them while it is locked.',
        fix: 'Unlock your keychain (log in again, or unlock it in Keychain Access / Seahorse), then quit and start Airlock again.',
      };
    case 'keychain_unavailable':
      return {
        title: 'No keychain available',
        detail: 'Airlock keeps gateway keys only in the OS keychain and never writes them to a file.',
        fix: `On Linux install and start a Secret Service (e.g. gnome-keyring with libsecret-1-0) in your desktop session; elsewhere check that the system keychain works. For a headless run use \`${CLI_COMMAND} serve\` with AIRLOCK_API_KEY set.`,
      };
    case 'unknown':
      return {
        title: 'The proxy could not start',
        detail: problem.detail,
        fix: 'Quit and start Airlock again; if it keeps failing, run `npm run serve` in a terminal to see the full message.',
      };
  }
}
