/**
 * Where secrets live: the OS keychain in production. Accounts under one service name:
 * a profile id holds that profile's gateway key, `client-token:<name>` a client token,
 * `control-token` the window's control token.
 */
export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** True when something was deleted. */
  delete(account: string): Promise<boolean>;
}

export const KEYCHAIN_SERVICE = 'airlock';
export const CONTROL_TOKEN_ACCOUNT = 'control-token';

export function gatewayKeyAccount(profileId: string): string {
  return profileId;
}

export function clientTokenAccount(tokenName: string): string {
  return `client-token:${tokenName}`;
}

/** No keychain to keep secrets in: said plainly, with the one way to run anyway. */
export class KeychainUnavailableError extends Error {
  constructor(detail: string) {
    super(
      `no OS keychain (Secret Service) is available: ${detail}. Start a keyring (e.g. gnome-keyring) ` +
        'in this session, or set AIRLOCK_API_KEY for this run; Airlock never writes keys to a file',
    );
    this.name = 'KeychainUnavailableError';
  }
}
