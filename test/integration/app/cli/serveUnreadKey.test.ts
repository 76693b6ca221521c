import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startupLines } from '../../../../proxy/app/cli/serve.ts';
import { addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { type Airlock, startAirlock } from '../../../../proxy/app/startAirlock.ts';
import { KeychainNotAnsweringError, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';

let airlock: Airlock | null = null;
let dataDir = '';

afterEach(async () => {
  await airlock?.stop();
  airlock = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe("serve's start lines when the keychain did not answer", () => {
  it('say the key was not read yet, not that it is not set (which would send the user to set it again)', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-serve-unread-'));
    const store = openConfigStore(dataDir);
    await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }));
    store.close();
    const fail = async (): Promise<never> => {
      throw new KeychainNotAnsweringError(30_000);
    };
    const notAnswering: SecretStore = { get: fail, set: fail, delete: fail };
    airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: notAnswering });
    const lines = startupLines(airlock, { dataDirArgument: null });
    expect(lines.find((line) => line.includes('Active profile'))).toContain('(key not read yet: see the note below)');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}Note: the OS keychain did not answer within 30 s/));
  });
});
