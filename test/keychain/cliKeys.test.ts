import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeytarSecretStore } from '../../proxy/app/secrets/keytarStore.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { runAirlock } from '../support/cliHarness.ts';

let dataDir: string;
const secrets = createKeytarSecretStore();

function airlock(args: string[], input = '') {
  return runAirlock(dataDir, secrets, args, input);
}

function everyFile(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-keychain-cli-'));
});

afterEach(async () => {
  await secrets.delete('work');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('airlock key set with the real keychain', () => {
  it('stores the key from stdin in the keychain and nowhere in the data directory', async () => {
    expect((await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1'])).exitCode).toBe(0);
    const set = await airlock(['key', 'set', 'work'], `  "${SENTINEL_KEY}"\n`);
    expect(set.exitCode).toBe(0);
    expect(await secrets.get('work')).toBe(SENTINEL_KEY);

    const listed = await airlock(['profile', 'list']);
    expect(listed.stdout).toContain(`key: set, ends in ${SENTINEL_KEY.slice(-4)}`);
    for (const output of [set.stdout, set.stderr, listed.stdout, listed.stderr]) expect(findSentinel(output)).toBeNull();

    const files = everyFile(dataDir);
    expect(files.map((file) => path.basename(file))).toContain('airlock.json');
    for (const file of files) expect({ file, leak: findSentinel(readFileSync(file)) }).toEqual({ file, leak: null });

    expect((await airlock(['key', 'delete', 'work'])).exitCode).toBe(0);
    expect(await secrets.get('work')).toBeNull();
    expect((await airlock(['profile', 'list'])).stdout).toContain('key: not set');
  });
});
