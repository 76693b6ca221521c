import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { updateProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import type { PriceTable } from '../../../../proxy/contracts/profileViews.ts';
import { addPoolKey } from '../../../../proxy/app/profiles/keyPoolEdits.ts';
import { poolKeyAccount } from '../../../../proxy/contracts/keyPool.ts';
import type { ConfigMutator } from '../../../../proxy/app/profiles/configStore.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

// The window's requests while another writer (the CLI, an editor) changes airlock.json: the other
// writer's change lands after the request read the config and before its locked write.

let harness: ControlHarness;

beforeAll(async () => {
  harness = await startControlHarness();
});

afterAll(async () => {
  await harness?.close();
});

/** Runs `otherWriter` once, just before the window's next locked write. */
function beforeTheAppWrites(otherWriter: () => Promise<unknown>): () => void {
  const { store } = harness;
  const appUpdate = store.update.bind(store);
  let pending = true;
  store.update = async (mutator: ConfigMutator) => {
    if (pending) {
      pending = false;
      await otherWriter();
    }
    return appUpdate(mutator);
  };
  return () => {
    store.update = appUpdate;
  };
}

const json = (method: string, body?: unknown): RequestInit => ({ method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

describe('removing a profile while another writer adds a key to its pool', () => {
  it('deletes from the keychain every key the profile had when it was removed, the one just added included', async () => {
    await harness.json('/profiles', json('POST', { id: 'team', name: 'Team', baseUrl: harness.simulator.baseUrl }));
    await harness.json('/profiles/team/keys', json('POST', { label: 'first', key: 'sk-team-first-0123456789abcdef' }));
    let cliKeyAccount: string | null = null;
    const restore = beforeTheAppWrites(async () => {
      const cliStore = openConfigStore(harness.dataDir);
      const added = await addPoolKey(
        { secrets: harness.secrets, config: cliStore },
        'team',
        'from the terminal',
        'sk-team-cli-0123456789abcdef',
      );
      cliStore.close();
      cliKeyAccount = poolKeyAccount('team', added.id);
    });
    try {
      const removal = await harness.api('/profiles/team', json('DELETE'));
      expect(removal.status).toBe(204);
    } finally {
      restore();
    }

    expect(cliKeyAccount).not.toBeNull();
    const left = [...(harness.secrets as unknown as { entries: Map<string, string> }).entries.keys()].filter((account) =>
      account.startsWith('team'),
    );
    expect(left).toEqual([]);
  });
});

describe('importing a price list while another writer changes the price multiplier', () => {
  it('changes the prices only, and keeps the multiplier the other writer saved', async () => {
    await harness.json('/profiles', json('POST', { id: 'priced', name: 'Priced', baseUrl: harness.simulator.baseUrl }));
    const restore = beforeTheAppWrites(async () => {
      const editor = openConfigStore(harness.dataDir);
      await editor.update((config) => updateProfile(config, 'priced', { priceMultiplier: 2 }));
      editor.close();
    });
    let imported: PriceTable;
    try {
      const text = JSON.stringify([{ model: 'gpt-4o', inputPer1M: 2.5, outputPer1M: 10 }]);
      imported = await harness.json<PriceTable>('/profiles/priced/prices/import', json('POST', { format: 'json', text }));
    } finally {
      restore();
    }
    expect(imported.prices.map((price) => price.model)).toEqual(['gpt-4o']);
    expect(imported.priceMultiplier).toBe(2);
  });
});
