import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeychainHelperStore } from '../../proxy/app/secrets/keychainHelperStore.ts';
import { API_KEY_ENV_VAR } from '../../proxy/app/secrets/envKeySource.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';

/** The processes this test process started, read from the kernel (no pid is exposed by the store). */
function childPids(): number[] {
  return readdirSync('/proc/self/task').flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, 'utf8')
      .split(' ')
      .filter((pid) => pid.trim() !== '')
      .map(Number),
  );
}

describe('the keychain helper process (airlock serve and the CLI)', () => {
  const savedKey = process.env[API_KEY_ENV_VAR];
  afterEach(() => {
    if (savedKey === undefined) delete process.env[API_KEY_ENV_VAR];
    else process.env[API_KEY_ENV_VAR] = savedKey;
  });

  it('does not get the gateway key a run holds in AIRLOCK_API_KEY', async () => {
    process.env[API_KEY_ENV_VAR] = SENTINEL_KEY;
    const before = new Set(childPids());
    const store = createKeychainHelperStore();
    expect(await store.get('helper-env-test')).toBeNull();
    // The helper is ended a turn after its answer: this continuation runs before that, while it is there.
    const helpers = childPids().filter((pid) => !before.has(pid));
    expect(helpers.length).toBeGreaterThan(0);
    for (const pid of helpers) {
      const environment = readFileSync(`/proc/${pid}/environ`, 'latin1');
      expect(environment).toContain('DBUS_SESSION_BUS_ADDRESS=');
      expect(environment).not.toContain(SENTINEL_KEY);
    }
  });

  it('a call made just after a helper ended for idleness is answered by the next one, not failed by the last', async () => {
    const store = createKeychainHelperStore();
    await store.set('helper-idle-test', SENTINEL_KEY);
    // The helper is ended a turn after its answer (setImmediate); a call made in the turn after that
    // starts another while the ended one is still exiting.
    for (let round = 0; round < 5; round += 1) {
      expect(await store.get('helper-idle-test')).toBe(SENTINEL_KEY);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await store.delete('helper-idle-test')).toBe(true);
  });
});
