/**
 * Where secrets live: the OS keychain in production. Accounts under one service name:
 * a profile id holds that profile's gateway key, `client-token:<name>` a client token,
 * `control-token` the window's control token, `trace-header:<name>` the value of a header
 * sent to the trace collector. A data directory other than the default one has these under its own
 * prefix (app/secrets/dataDirSecrets.ts), so one directory's key never goes to another's gateway.
 */
export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** True when something was deleted. */
  delete(account: string): Promise<boolean>;
  /**
   * Calls `listener` when a keychain that had stopped answering (a call past its wait) answers
   * again, so what could not be read is read then. Returns the unsubscribe function.
   */
  onAnswersAgain?(listener: () => void): () => void;
}

export const KEYCHAIN_SERVICE = 'airlock';
export const CONTROL_TOKEN_ACCOUNT = 'control-token';

export function gatewayKeyAccount(profileId: string): string {
  return profileId;
}

const CLIENT_TOKEN_PREFIX = 'client-token:';
const TRACE_HEADER_PREFIX = 'trace-header:';

export function clientTokenAccount(tokenName: string): string {
  return `${CLIENT_TOKEN_PREFIX}${tokenName}`;
}

/** A trace export header's value, under its lowercase name (contracts/traceHeaders.ts). */
export function traceHeaderAccount(headerName: string): string {
  return `${TRACE_HEADER_PREFIX}${headerName}`;
}

/** Whether an account holds a gateway key (a profile's own or its pool's); the others are named by kind. */
export function isGatewayKeyAccount(account: string): boolean {
  return account !== CONTROL_TOKEN_ACCOUNT && !account.startsWith(CLIENT_TOKEN_PREFIX) && !account.startsWith(TRACE_HEADER_PREFIX);
}

/** The way to run without a keychain for a gateway key. */
const GATEWAY_KEY_FALLBACK = 'set AIRLOCK_API_KEY for this run; Airlock never writes keys to a file';

/**
 * The platform's words for a keychain that is there but locked: libsecret's "…in a locked collection"
 * (gnome-keyring, its unlock prompt dismissed or impossible), macOS's "User interaction is not allowed."
 */
const KEYCHAIN_LOCKED = /\blocked\b|interaction is not allowed/i;

/**
 * libsecret keeps the unique bus name (":1.42") of the Secret Service it first reached; once that
 * daemon ended, D-Bus answers that the name is not provided, though a new daemon may serve the
 * well-known name: only a process that connects again reaches it.
 */
const SECRET_SERVICE_GONE = /The name :[\d.]+ was not provided/;

/**
 * The system refused Airlock a new process or file (Node's fork reports it as `spawn EMFILE` and the
 * like): the keychain is fine, so telling the user to start one sends them the wrong way.
 */
const SYSTEM_OUT_OF_RESOURCES = /\b(EMFILE|ENFILE|EAGAIN|ENOMEM)\b/;

function explainKeychainFailure(detail: string, fallback: string): string {
  if (SYSTEM_OUT_OF_RESOURCES.test(detail)) {
    return `the system refused Airlock what it needs to reach the OS keychain (${detail}): it is out of open files, processes or memory. Close programs or raise the limit (ulimit -n), then try again; the next keychain call tries anew. Or ${fallback}`;
  }
  if (KEYCHAIN_LOCKED.test(detail)) {
    return `the OS keychain is locked (${detail}). Unlock it (on Linux in Passwords and Keys, or log out and in; on macOS in Keychain Access) and try again, or ${fallback}`;
  }
  if (SECRET_SERVICE_GONE.test(detail)) {
    return `the Secret Service Airlock was using is gone (${detail}): its daemon ended or restarted. The keys already read stay in use. Restart Airlock to reach the keyring running now, or ${fallback}`;
  }
  return `no OS keychain (Secret Service) is available: ${detail}. Start a keyring (e.g. gnome-keyring) in this session, or ${fallback}`;
}

/** No keychain to keep secrets in, a locked one, or one that went away: said plainly, with the one way to run anyway. */
export class KeychainUnavailableError extends Error {
  /** The platform's reason, to say it again with another way forward (`withFallback`). */
  readonly detail: string;

  constructor(detail: string, fallback: string = GATEWAY_KEY_FALLBACK) {
    super(explainKeychainFailure(detail, fallback));
    this.name = 'KeychainUnavailableError';
    this.detail = detail;
  }

  /** The same failure, naming the way to run without a keychain that fits the secret at hand. */
  withFallback(fallback: string): KeychainUnavailableError {
    return new KeychainUnavailableError(this.detail, fallback);
  }
}

/** What a call that has not answered was doing: what happens once the keychain answers differs. */
export type KeychainCall = 'read' | 'save' | 'delete';

const AFTER_NO_ANSWER: Record<KeychainCall, (fallback: string) => string> = {
  read: (fallback) => `Airlock reads the keys as soon as it answers; until then ${fallback}`,
  save: () => 'The secret may not have been saved: save it again once the keychain answers (Airlock wrote it nowhere else)',
  delete: () => 'The secret may not have been deleted: delete it again once the keychain answers',
};

/**
 * A keychain that is there but has not answered a call in time: an unlock prompt nobody answered,
 * or a Secret Service or D-Bus that hangs. Unlike a missing keychain, waiting can end it.
 */
export class KeychainNotAnsweringError extends KeychainUnavailableError {
  readonly waitedMs: number;
  readonly call: KeychainCall;

  constructor(waitedMs: number, call: KeychainCall = 'read', fallback: string = GATEWAY_KEY_FALLBACK) {
    super(`it did not answer within ${Math.round(waitedMs / 1000)} s`, fallback);
    this.name = 'KeychainNotAnsweringError';
    this.waitedMs = waitedMs;
    this.call = call;
    this.message =
      `the OS keychain did not answer within ${Math.round(waitedMs / 1000)} s. It may be waiting for you to unlock it: ` +
      'answer its password prompt. If no prompt is open, its service is stuck: on Linux restart gnome-keyring-daemon ' +
      `(or log out and in). ${AFTER_NO_ANSWER[call](fallback)}`;
  }

  override withFallback(fallback: string): KeychainNotAnsweringError {
    return new KeychainNotAnsweringError(this.waitedMs, this.call, fallback);
  }
}
