import { generateToken, secretsEqual } from './clientTokens.ts';
import { CONTROL_TOKEN_ACCOUNT, KeychainUnavailableError, type SecretStore } from '../contracts/secretStore.ts';

/** A different prefix from client tokens: the two kinds are never interchangeable. */
export const CONTROL_TOKEN_PREFIX = 'alkc_';

export interface ControlToken {
  token: string;
  /** False when no keychain was available: the token lives for this run only. */
  persisted: boolean;
}

/**
 * The control API's token: generated once and kept in the keychain so the window and the CLI
 * find the same one across restarts. Without a keychain, a token for this run only.
 */
export async function loadControlToken(secrets: SecretStore): Promise<ControlToken> {
  try {
    const existing = await secrets.get(CONTROL_TOKEN_ACCOUNT);
    if (existing) return { token: existing, persisted: true };
    const token = generateToken(CONTROL_TOKEN_PREFIX);
    await secrets.set(CONTROL_TOKEN_ACCOUNT, token);
    return { token, persisted: true };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return { token: generateToken(CONTROL_TOKEN_PREFIX), persisted: false };
  }
}

/**
 * Checks an `Authorization` header against the control token, in constant time. Client tokens
 * are never accepted here, and the control token is never a client token (it has no record).
 */
export function createControlTokenCheck(controlToken: string): (authorizationHeader: string | undefined) => boolean {
  return (authorizationHeader) => {
    const presented = authorizationHeader ? /^Bearer\s+(\S+)\s*$/i.exec(authorizationHeader)?.[1] : undefined;
    return presented !== undefined && secretsEqual(presented, controlToken);
  };
}
