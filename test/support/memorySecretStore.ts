import type { SecretStore } from '../../proxy/contracts/secretStore.ts';
import { KeychainUnavailableError } from '../../proxy/contracts/secretStore.ts';

/** An in-memory SecretStore for tests; the real keychain is exercised in test/keychain. */
export function memorySecretStore(initial: Record<string, string> = {}): SecretStore & { entries: Map<string, string> } {
  const entries = new Map(Object.entries(initial));
  return {
    entries,
    get: async (account) => entries.get(account) ?? null,
    set: async (account, secret) => {
      entries.set(account, secret);
    },
    delete: async (account) => entries.delete(account),
  };
}

export function unavailableSecretStore(): SecretStore {
  const fail = async (): Promise<never> => {
    throw new KeychainUnavailableError('no D-Bus session');
  };
  return { get: fail, set: fail, delete: fail };
}
