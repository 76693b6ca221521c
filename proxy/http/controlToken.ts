import { generateToken, secretsEqual } from './clientTokens.ts';
import { CONTROL_TOKEN_ACCOUNT, KeychainUnavailableError, type SecretStore } from '../contracts/secretStore.ts';
import { CONTROL_TOKEN_PREFIX } from '../contracts/clientTokens.ts';

export { CONTROL_TOKEN_PREFIX };

export interface ControlToken {
  token: string;
  /** False when no keychain was available: the token lives for this run only. */
  persisted: boolean;
}

/**
 * The control API's token: generated once and kept in the keychain so the window and the CLI
 * find the same one across restarts. Without a keychain, a token for this run only. `newToken`:
 * the token to keep when the keychain holds none.
 */
export async function loadControlToken(
  secrets: SecretStore,
  newToken: string = generateToken(CONTROL_TOKEN_PREFIX),
): Promise<ControlToken> {
  try {
    const existing = await secrets.get(CONTROL_TOKEN_ACCOUNT);
    if (existing) return { token: existing, persisted: true };
    const token = newToken;
    await secrets.set(CONTROL_TOKEN_ACCOUNT, token);
    return { token, persisted: true };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return { token: newToken, persisted: false };
  }
}

/**
 * The control tokens the control API takes: this run's, and, when the keychain did not answer at
 * start, the one it holds once it answers. The CLI reads its token from the keychain, the window
 * was given this run's: both must work without a restart.
 */
export class ControlTokens {
  /** This run's token: the one the window is given. */
  readonly token: string;
  readonly #accepted: string[];
  #inKeychain: boolean;

  /** `inKeychain`: false for a token made for this run only, which the CLI cannot read. */
  constructor(token: string, inKeychain = true) {
    this.token = token;
    this.#accepted = [token];
    this.#inKeychain = inKeychain;
  }

  /** A token the keychain holds: the CLI's calls (`airlock window`, `resume`, `replay`) reach this run with it. */
  accept(token: string): void {
    if (!this.#accepted.includes(token)) this.#accepted.push(token);
    this.#inKeychain = true;
  }

  /** Whether the CLI can reach this run: the keychain holds a token it takes. */
  get inKeychain(): boolean {
    return this.#inKeychain;
  }

  /** Every token taken, for masking. */
  all(): readonly string[] {
    return this.#accepted;
  }

  /** In constant time for each token taken (there are at most two). */
  matches(presented: string): boolean {
    let matched = false;
    for (const token of this.#accepted) matched = secretsEqual(presented, token) || matched;
    return matched;
  }
}

/**
 * A control token made for this run because the keychain did not answer in time: once it answers
 * again, the token it holds (an earlier run's, which the CLI reads) is taken too, or, when it holds
 * none, this run's is saved there for the CLI. Returns the unsubscribe function.
 */
export function followKeychainControlToken(secrets: SecretStore, loaded: ControlToken, tokens: ControlTokens): () => void {
  if (loaded.persisted || !secrets.onAnswersAgain) return () => undefined;
  let adopted = false;
  const stop = secrets.onAnswersAgain(() => {
    if (adopted) return;
    loadControlToken(secrets, tokens.token).then(
      (found) => {
        if (!found.persisted || adopted) return;
        adopted = true;
        tokens.accept(found.token);
        stop();
      },
      // Not read this time: the next answer tries again.
      () => undefined,
    );
  });
  return stop;
}

/**
 * Checks an `Authorization` header against the control token(s), in constant time. Client tokens
 * are never accepted here, and the control token is never a client token (it has no record).
 */
export function createControlTokenCheck(controlToken: string | ControlTokens): (authorizationHeader: string | undefined) => boolean {
  const tokens = typeof controlToken === 'string' ? new ControlTokens(controlToken) : controlToken;
  return (authorizationHeader) => {
    const presented = authorizationHeader ? /^Bearer\s+(\S+)\s*$/i.exec(authorizationHeader)?.[1] : undefined;
    return presented !== undefined && tokens.matches(presented);
  };
}
