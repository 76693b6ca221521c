import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { KeyCache } from '../../proxy/app/secrets/keyCache.ts';
import { createKeytarSecretStore } from '../../proxy/app/secrets/keytarStore.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';

const run = promisify(execFile);
const probe = path.join(import.meta.dirname, 'fixtures', 'probeKeychain.ts');

describe('keytar SecretStore (real Secret Service)', () => {
  it('sets, gets, replaces and deletes a secret', async () => {
    const secrets = createKeytarSecretStore();
    expect(await secrets.get('store-test')).toBeNull();
    await secrets.set('store-test', SENTINEL_KEY);
    expect(await secrets.get('store-test')).toBe(SENTINEL_KEY);
    await secrets.set('store-test', 'sk-replacement-key-0001');
    expect(await secrets.get('store-test')).toBe('sk-replacement-key-0001');
    expect(await secrets.delete('store-test')).toBe(true);
    expect(await secrets.get('store-test')).toBeNull();
    expect(await secrets.delete('store-test')).toBe(false);
  });

  it('keeps accounts apart', async () => {
    const secrets = createKeytarSecretStore();
    await secrets.set('profile-a', 'sk-key-a-000000000001');
    await secrets.set('client-token:cursor', 'alk_token-for-cursor');
    expect(await secrets.get('profile-a')).toBe('sk-key-a-000000000001');
    expect(await secrets.get('client-token:cursor')).toBe('alk_token-for-cursor');
    await secrets.delete('profile-a');
    await secrets.delete('client-token:cursor');
  });

  it('the key cache loads from the keychain and shows only the last four', async () => {
    const secrets = createKeytarSecretStore();
    await secrets.set('cached', SENTINEL_KEY);
    const cache = new KeyCache(secrets);
    await cache.loadAll(['cached', 'absent']);
    expect(cache.keychainProblem()).toBeNull();
    expect(cache.keyStatus('cached')).toEqual({ set: true, lastFour: SENTINEL_KEY.slice(-4) });
    expect(cache.keyStatus('absent')).toEqual({ set: false, lastFour: null });
    expect(cache.getKeyForRequest('cached')).toBe(SENTINEL_KEY);
    await cache.deleteKey('cached');
    expect(await secrets.get('cached')).toBeNull();
  });

  it('without a Secret Service says so plainly and points at AIRLOCK_API_KEY', async () => {
    const { stdout } = await run(process.execPath, [probe], {
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/airlock-no-bus' },
      timeout: 20_000,
    });
    expect(stdout).toMatch(/^KeychainUnavailableError: no OS keychain \(Secret Service\) is available: /);
    expect(stdout).toContain('set AIRLOCK_API_KEY for this run');
  });
});
