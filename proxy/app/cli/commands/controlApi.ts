import type { Command } from 'commander';
import type { Agent, Response } from 'undici';
import { CONTROL_API_PREFIX, type ApiErrorBody } from '../../../contracts/controlApi.ts';
import { CONTROL_TOKEN_ACCOUNT, KeychainUnavailableError, type SecretStore } from '../../../contracts/secretStore.ts';
import { DEFAULT_PORT } from '../../../contracts/defaults.ts';
import { hintFor, secretsFor, type CliDeps } from './cliContext.ts';

/** The running Airlock of this command's data directory: its control token, and how hints name its commands. */
export interface ControlReach {
  secrets: SecretStore;
  hint: (args: string) => string;
}

export function controlReachFor(command: Command, deps: CliDeps): ControlReach {
  return { secrets: secretsFor(command, deps), hint: hintFor(command, deps) };
}

export interface ControlCall {
  port: number;
  method: 'GET' | 'POST';
  /** Under the control API, e.g. `/requests/<id>`. */
  path: string;
  body?: unknown;
  /** What the user can do instead when Airlock has no control token here (the window's way), e.g. "Resume the client in the window instead." */
  instead: string;
  /** Bounds the whole call; none for calls that wait on a model's answer (the proxy's own timeouts bound those). */
  timeoutMs?: number;
}

/**
 * One call to the running Airlock's control API with the control token from the keychain (as its
 * data directory sees it, `reach.secrets`): for
 * what lives in that process (the burst guard's pauses, the spend gate a replay must pass).
 * A refusal becomes an Error carrying the API's own explanation.
 */
export async function callControlApi<T>(reach: ControlReach, call: ControlCall): Promise<T> {
  const controlToken = await controlTokenOf(reach.secrets, call.instead);
  if (!controlToken) throw new Error(`no control token in the keychain: is Airlock set up on this machine? ${call.instead}`);
  // Loaded here, not with this module: `airlock serve` loads every command's module, and undici's
  // index would stay in the proxy's heap all day for calls only the short-lived commands make.
  const undici = await import('undici');
  // fetch's default 300 s wait for headers would cut off a replay of a slow model's answer.
  const waiting = call.timeoutMs === undefined ? new undici.Agent({ headersTimeout: 0, bodyTimeout: 0 }) : undefined;
  try {
    return await send<T>(undici.fetch, reach, call, controlToken, waiting);
  } finally {
    await waiting?.close();
  }
}

/**
 * The control token from the keychain. Without a keychain the running Airlock made one for its run
 * only, so the keychain error's usual way forward (AIRLOCK_API_KEY, for the gateway key) does not
 * help here: the window does.
 */
async function controlTokenOf(secrets: SecretStore, instead: string): Promise<string | null> {
  try {
    return await secrets.get(CONTROL_TOKEN_ACCOUNT);
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    const windowWay = `${instead.charAt(0).toLowerCase()}${instead.slice(1).replace(/\.$/, '')}`;
    throw error.withFallback(`${windowWay} (without a keychain, only the running Airlock and its window have the control token).`);
  }
}

async function send<T>(
  fetch: typeof import('undici').fetch,
  reach: ControlReach,
  call: ControlCall,
  controlToken: string,
  waiting: Agent | undefined,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${call.port}${CONTROL_API_PREFIX}${call.path}`, {
      method: call.method,
      headers: {
        authorization: `Bearer ${controlToken}`,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      ...(waiting ? { dispatcher: waiting } : {}),
      ...(call.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(call.timeoutMs) }),
    });
  } catch (error) {
    throw new Error(unreachedText(reach, call, error));
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as Partial<ApiErrorBody> | null;
    throw new Error(body?.error?.message ?? notAirlockText(call.port, `HTTP ${response.status}`));
  }
  return (await response.json()) as T;
}

function notAirlockText(port: number, detail?: string): string {
  return `The program on port ${port} does not answer as Airlock does${detail ? ` (${detail})` : ''}: give Airlock's port with --port.`;
}

/**
 * Why the call got no answer. Only a refused connection means nothing listens there: a program that
 * is not Airlock (or an Airlock that hangs) holds the port, and starting Airlock there would fail.
 */
function unreachedText(reach: ControlReach, call: ControlCall, error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError' && call.timeoutMs !== undefined) {
    return `The program on port ${call.port} did not answer within ${call.timeoutMs / 1000} s: if it is Airlock, it is busy or stuck; otherwise give Airlock's port with --port.`;
  }
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (code === 'ECONNREFUSED')
    return `Airlock is not running on port ${call.port} (start it with \`${reach.hint(call.port === DEFAULT_PORT ? 'serve' : `serve --port ${call.port}`)}\` or the desktop app).`;
  return notAirlockText(call.port);
}
