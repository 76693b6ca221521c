import { CLI_COMMAND, suggestedCommand } from '../../contracts/cli.ts';
import type { PortBlockedError, PortInUseError } from '../../http/listenRefusal.ts';

/** How long the port's holder has to answer as Airlock: a local Airlock answers in milliseconds. */
const HOLDER_ANSWER_WAIT_MS = 1_000;

/** Whether what listens there is an Airlock: its root answers `{ service: 'airlock' }` (startServer.ts). */
async function airlockAnswersOn(host: string, port: number): Promise<boolean> {
  try {
    const answer = await fetch(`http://${host}:${port}/`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(HOLDER_ANSWER_WAIT_MS),
    });
    const body: unknown = await answer.json();
    return typeof body === 'object' && body !== null && (body as { service?: unknown }).service === 'airlock';
  } catch {
    // Not HTTP, not JSON, or no answer in time: some other program.
    return false;
  }
}

/**
 * What `airlock serve` says when its port is taken: who holds it as far as Airlock can tell, and
 * the ways out a headless run has (there is no tray or window to look in).
 */
export async function portTakenMessage(error: PortInUseError, dataDirArgument: string | null): Promise<string> {
  const { host, port } = error;
  const holder = (await airlockAnswersOn(host, port))
    ? // The same data directory's Airlock is refused earlier (dataDirLock.ts), so this one serves another.
      `another Airlock is serving on ${host}:${port} (the desktop app, or \`${CLI_COMMAND} serve\` with another data directory): stop it`
    : `another program holds it (find it with \`lsof -i :${port}\` on macOS/Linux, \`netstat -ano | findstr :${port}\` on Windows): stop it`;
  return (
    `${error.message} ${holder[0]?.toUpperCase()}${holder.slice(1)}, or serve on another port with ` +
    `\`${suggestedCommand('serve --port <other>', dataDirArgument)}\` and point your clients at that port.`
  );
}

/** What `airlock serve` says when the system refuses its port (listenRefusal.ts): the cause, then the way out. */
export function portBlockedMessage(error: PortBlockedError, dataDirArgument: string | null): string {
  return `${error.message} Or serve on another port with \`${suggestedCommand('serve --port <other>', dataDirArgument)}\` and point your clients at that port.`;
}
