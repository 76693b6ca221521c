import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { addPoolKey } from '../../../../proxy/app/profiles/keyPoolEdits.ts';
import { poolKeyAccount } from '../../../../proxy/contracts/keyPool.ts';
import type { ConfigMutator } from '../../../../proxy/app/profiles/configStore.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

// Removing a profile in the window while `airlock key add` runs in a terminal: the CLI's new pool
// key lands in airlock.json after the window's request read the profile and before its locked write.

let harness: ControlHarness;

beforeAll(async () => {
  harness = await startControlHarness();
});

afterAll(async () => {
  await harness?.close();
});

const json = (method: string, body?: unknown): RequestInit => ({ method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

describe('removing a profile while another writer adds a key to its pool', () => {
  it('deletes from the keychain every key the profile had when it was removed, the one just added included', async () => {
    await harness.json('/profiles', json('POST', { id: 'team', name: 'Team', baseUrl: harness.simulator.baseUrl }));
    await harness.json('/profiles/team/keys', json('POST', { label: 'first', key: 'sk-team-first-0123456789abcdef' }));
    const { store } = harness;
    const appUpdate = store.update.bind(store);
    let cliKeyAccount: string | null = null;
    // The CLI's write lands exactly between the window's read and its own write.
    store.update = async (mutator: ConfigMutator) => {
      if (cliKeyAccount === null) {
        const cliStore = openConfigStore(harness.dataDir);
        const added = await addPoolKey(
          { secrets: harness.secrets, config: cliStore },
          'team',
          'from the terminal',
          'sk-team-cli-0123456789abcdef',
        );
        cliStore.close();
        cliKeyAccount = poolKeyAccount('team', added.id);
      }
      return appUpdate(mutator);
    };
    try {
      const removal = await harness.api('/profiles/team', json('DELETE'));
      expect(removal.status).toBe(204);
    } finally {
      store.update = appUpdate;
    }

    expect(cliKeyAccount).not.toBeNull();
    const left = [...(harness.secrets as unknown as { entries: Map<string, string> }).entries.keys()].filter((account) =>
      account.startsWith('team'),
    );
    expect(left).toEqual([]);
  });
});
