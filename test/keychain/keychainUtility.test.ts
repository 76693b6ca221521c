import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKeychainUtilityStore } from '../../electron/keychainUtility.ts';
import { API_KEY_ENV_VAR } from '../../proxy/app/secrets/envKeySource.ts';
import { KeychainNotAnsweringError, type SecretStore } from '../../proxy/contracts/secretStore.ts';
import { app, recorder } from '../support/electronStandIn.ts';
import { type PrivateKeyring, startPrivateKeyring } from '../support/privateKeyring.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';

/**
 * The desktop app's keychain (electron/keychainUtility.ts) on a Secret Service of this test's own:
 * keytar runs in the helper, a utility process (a real child process under the Electron stand-in).
 */
vi.mock('electron', async () => (await import('../support/electronStandIn.ts')).electronModule);

/** The bound under test, short so the test is quick; production waits 30 s (boundedSecretStore.ts). */
const ANSWER_WAIT_MS = 1000;
const ACCOUNT = 'utility-process-test';

let keyring: PrivateKeyring;
let store: SecretStore;

/** The process id of the helper started last, as the stand-in recorded it. */
const latestHelperPid = (): number =>
  Number(
    recorder.events
      .filter((event) => event.startsWith('utility:spawn Airlock keychain '))
      .at(-1)
      ?.split(' ')
      .at(-1),
  );

beforeAll(async () => {
  keyring = await startPrivateKeyring();
  // The helper gets the app's environment: the private bus and HOME, and a gateway key the run holds.
  for (const [name, value] of Object.entries(keyring.env)) if (process.env[name] !== value) vi.stubEnv(name, value);
  vi.stubEnv(API_KEY_ENV_VAR, SENTINEL_KEY);
  await app.whenReady();
  store = createKeychainUtilityStore(ANSWER_WAIT_MS);
});

afterAll(async () => {
  keyring.bus.kill('SIGCONT');
  await keyring.stop();
  vi.unstubAllEnvs();
});

describe("the desktop app's keychain helper on a real Secret Service", () => {
  it("saves, reads and deletes through keytar in the helper, whose environment lacks the run's gateway key", async () => {
    await store.set(ACCOUNT, 'sk-saved-by-the-helper');
    expect(await store.get(ACCOUNT)).toBe('sk-saved-by-the-helper');
    // The helper is ended a turn after its answer: this continuation runs before that, while it is there.
    const environment = readFileSync(`/proc/${latestHelperPid()}/environ`, 'latin1');
    expect(environment).toContain('DBUS_SESSION_BUS_ADDRESS=');
    expect(environment).not.toContain(SENTINEL_KEY);
    expect(await store.delete(ACCOUNT)).toBe(true);
    expect(await store.get(ACCOUNT)).toBeNull();
  });

  it('fails a call on a D-Bus that stopped answering within the bound, and the app quitting kills the helper holding it', async () => {
    keyring.bus.kill('SIGSTOP');
    await expect(store.get(ACCOUNT)).rejects.toBeInstanceOf(KeychainNotAnsweringError);
    const holder = latestHelperPid();
    // The call is still held: its helper waits on the bus.
    expect(existsSync(`/proc/${holder}`)).toBe(true);

    app.quit();
    expect(recorder.events).toContain('utility:kill Airlock keychain');
    // A bound for a hung wait only (the keychain project sets no poll limit of its own).
    await expect.poll(() => existsSync(`/proc/${holder}`), { timeout: 10_000 }).toBe(false);
  });
});
