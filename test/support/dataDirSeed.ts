import { tokenRecord } from '../../proxy/http/clientTokens.ts';
import { addClientToken, addProfile } from '../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../proxy/app/profiles/configStore.ts';

/** A data directory as a user leaves it after setup: the active profile `main` on the gateway, and client tokens by name. */
export async function seedDataDir(dataDir: string, gatewayBaseUrl: string, clientTokens: Record<string, string>): Promise<void> {
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: gatewayBaseUrl }, { activate: true }));
  for (const [name, token] of Object.entries(clientTokens)) {
    await store.update((config) => addClientToken(config, tokenRecord(name, token, null, Date.now())));
  }
  store.close();
}
