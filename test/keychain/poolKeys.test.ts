import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeytarSecretStore } from '../../proxy/app/secrets/keytarStore.ts';
import { openConfigStore } from '../../proxy/app/profiles/configStore.ts';
import { poolKeyAccount } from '../../proxy/contracts/keyPool.ts';
import { findSentinel, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../support/sentinel.ts';
import { runAirlock } from '../support/cliHarness.ts';

let dataDir: string;
const secrets = createKeytarSecretStore();
const accounts: string[] = [];

function airlock(args: string[], input = '') {
  return runAirlock(dataDir, secrets, args, input);
}

function poolOf(): Array<{ id: string; label: string }> {
  const store = openConfigStore(dataDir);
  try {
    return store.snapshot().profiles.find((profile) => profile.id === 'work')?.keyPool ?? [];
  } finally {
    store.close();
  }
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-keychain-pool-'));
});

afterEach(async () => {
  for (const account of accounts.splice(0)) await secrets.delete(account);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a key pool in the real keychain', () => {
  it('keeps each key in its own keychain account, the profile file holding only ids and labels', async () => {
    expect((await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1'])).exitCode).toBe(0);
    expect((await airlock(['key', 'set', 'work'], SENTINEL_KEY)).exitCode).toBe(0);
    accounts.push('work');
    const added = await airlock(['key', 'add', 'work', '--label', 'spare'], SECOND_SENTINEL_KEY);
    expect(added.exitCode).toBe(0);

    // The profile's own key became the pool's first, where it was; the new one has an account of its own.
    const pool = poolOf();
    expect(pool.map((key) => key.label)).toEqual(['key 1', 'spare']);
    const spareId = pool[1]?.id ?? '';
    accounts.push(poolKeyAccount('work', spareId));
    expect(await secrets.get('work')).toBe(SENTINEL_KEY);
    expect(await secrets.get(poolKeyAccount('work', spareId))).toBe(SECOND_SENTINEL_KEY);

    const listed = await airlock(['key', 'list', 'work']);
    expect(listed.stdout).toContain(`main\tkey 1\tset, ends in ${SENTINEL_KEY.slice(-4)}`);
    expect(listed.stdout).toContain(`${spareId}\tspare\tset, ends in ${SECOND_SENTINEL_KEY.slice(-4)}`);
    for (const output of [added.stdout, added.stderr, listed.stdout, listed.stderr]) {
      expect(findSentinel(output)).toBeNull();
      expect(findSentinel(output, SECOND_SENTINEL_KEY)).toBeNull();
    }
    for (const entry of readdirSync(dataDir, { withFileTypes: true, recursive: true }).filter((candidate) => candidate.isFile())) {
      const text = readFileSync(path.join(entry.parentPath, entry.name));
      expect([findSentinel(text), findSentinel(text, SECOND_SENTINEL_KEY)]).toEqual([null, null]);
    }

    expect((await airlock(['key', 'label', 'work', spareId, 'night shift'])).exitCode).toBe(0);
    expect(poolOf().map((key) => key.label)).toEqual(['key 1', 'night shift']);
    expect((await airlock(['key', 'remove', 'work', 'main'])).exitCode).toBe(0);
    expect(await secrets.get('work')).toBeNull();
    expect(poolOf().map((key) => key.id)).toEqual([spareId]);
    // A pooled profile's key is replaced by its id: a bare `key set` would leave the pool untouched.
    expect((await airlock(['key', 'set', 'work'], SENTINEL_KEY)).stderr).toContain('--key <id>');
    expect((await airlock(['key', 'set', 'work', '--key', spareId], SENTINEL_KEY)).exitCode).toBe(0);
    expect(await secrets.get(poolKeyAccount('work', spareId))).toBe(SENTINEL_KEY);
    expect((await airlock(['key', 'delete', 'work'])).exitCode).toBe(0);
    expect(await secrets.get(poolKeyAccount('work', spareId))).toBeNull();
    expect(poolOf()).toEqual([]);
  });
});
