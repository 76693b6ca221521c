import { KEYCHAIN_SERVICE, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';
import { boundKeychainWaits, KEYCHAIN_ANSWER_WAIT_MS } from './boundedSecretStore.ts';

interface KeytarModule {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/**
 * The OS keychain through keytar (libsecret on Linux, Keychain on macOS, Credential Manager on
 * Windows). keytar is loaded lazily so a machine without libsecret or a Secret Service gets a
 * KeychainUnavailableError with a way forward, not a crash at start. No call is waited for longer
 * than `answerWaitMs` (boundedSecretStore.ts).
 */
export function createKeytarSecretStore(service: string = KEYCHAIN_SERVICE, answerWaitMs: number = KEYCHAIN_ANSWER_WAIT_MS): SecretStore {
  return boundKeychainWaits(keytarCalls(service), answerWaitMs);
}

/** keytar's calls as they are, each waited for as long as it takes: for a process that bounds them itself. */
export function keytarCalls(service: string = KEYCHAIN_SERVICE): SecretStore {
  let loaded: Promise<KeytarModule> | null = null;
  const keytar = (): Promise<KeytarModule> => {
    loaded ??= import('keytar').then(
      (module) => (module.default ?? module) as KeytarModule,
      (error: unknown) => {
        throw new KeychainUnavailableError(`keytar could not be loaded (${describe(error)})`);
      },
    );
    return loaded;
  };
  return {
    get: (account) => callKeychain(async () => (await keytar()).getPassword(service, account)),
    set: (account, secret) => callKeychain(async () => (await keytar()).setPassword(service, account, secret)),
    delete: (account) => callKeychain(async () => (await keytar()).deletePassword(service, account)),
  };
}

/** keytar's errors carry the platform's reason (no D-Bus, no Secret Service, locked); never the secret. */
async function callKeychain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof KeychainUnavailableError) throw error;
    throw new KeychainUnavailableError(describe(error));
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.trim() || 'unknown error';
}
