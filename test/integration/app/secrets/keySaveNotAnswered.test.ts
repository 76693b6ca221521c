import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { boundKeychainWaits } from '../../../../proxy/app/secrets/boundedSecretStore.ts';
import { type Airlock, startAirlock } from '../../../../proxy/app/startAirlock.ts';
import type { ProfileListResponse } from '../../../../proxy/contracts/profileViews.ts';
import { CONTROL_TOKEN_ACCOUNT, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

const CONTROL_TOKEN = 'alkc_control-token-for-the-key-save-test-0123';
/** The bound under test, short so the test is quick; production waits 30 s (boundedSecretStore.ts). */
const ANSWER_WAIT_MS = 200;

let airlock: Airlock | null = null;
let dataDir = '';

afterEach(async () => {
  await airlock?.stop();
  airlock = null;
  rmSync(dataDir, { recursive: true, force: true });
});

/** A keychain whose saves wait for the test, as one behind an unlock prompt nobody has answered yet. */
function keychainWithHeldSaves() {
  const held = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN });
  const saves: Array<() => void> = [];
  const inner: SecretStore = {
    ...held,
    set: (account, secret) => new Promise<void>((resolve) => saves.push(() => void held.set(account, secret).then(resolve))),
  };
  return { secrets: boundKeychainWaits(inner, ANSWER_WAIT_MS), answerSave: () => saves.shift()?.() };
}

describe('a key saved in the window while the keychain does not answer', () => {
  it('fails within the bound saying so and what to do, shows the key nowhere, and is used once the keychain takes it', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-key-save-'));
    const store = openConfigStore(dataDir);
    await store.update((config) => addProfile(config, { id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1' }, { activate: true }));
    store.close();
    const keychain = keychainWithHeldSaves();
    airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: keychain.secrets, uiDir: path.join(dataDir, 'no-ui') });
    const keyOfWork = async () => ((await (await api('/profiles')).json()) as ProfileListResponse).profiles[0]?.key;
    const api = (pathAndQuery: string, init: RequestInit = {}) =>
      fetch(`${airlock!.proxy.url}/_airlock/api${pathAndQuery}`, {
        ...init,
        headers: { authorization: `Bearer ${CONTROL_TOKEN}`, 'content-type': 'application/json' },
      });

    const saved = await api('/profiles/work/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
    const text = await saved.text();
    expect(saved.status).toBe(503);
    expect(JSON.parse(text).error).toMatchObject({
      code: 'keychain_unavailable',
      message: expect.stringContaining('The secret may not have been saved: save it again once the keychain answers'),
    });
    expect(findSentinel(text)).toBeNull();
    // The window still answers while the save is held; whether the key is there is not known until the keychain answers.
    expect(await keyOfWork()).toEqual({ set: false, lastFour: null, unread: true });

    // The prompt is answered late: the keychain took the key, and Airlock reads it from there.
    const read = new Promise<void>((resolve) => airlock!.keys.onChange(resolve));
    keychain.answerSave();
    await read;
    expect(await keyOfWork()).toEqual({ set: true, lastFour: SENTINEL_KEY.slice(-4) });
  });
});
