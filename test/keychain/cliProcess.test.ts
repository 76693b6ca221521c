import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeytarSecretStore } from '../../proxy/app/secrets/keytarStore.ts';
import { secretStoreForDataDir } from '../../proxy/app/secrets/dataDirSecrets.ts';
import type { SecretStore } from '../../proxy/contracts/secretStore.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';

const mainScript = path.join(import.meta.dirname, '..', '..', 'proxy', 'app', 'cli', 'main.ts');
const keychain = createKeytarSecretStore();
let dataDir: string;
/** The keychain as the command sees it for this (not the default) data directory: under its own accounts. */
let secrets: SecretStore;

interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real `airlock` command in a child process, with `input` piped to its stdin. */
function airlock(args: string[], input = ''): Promise<Finished> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [mainScript, '--data-dir', dataDir, ...args], { timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-keychain-process-'));
  secrets = secretStoreForDataDir(keychain, dataDir, { env: process.env, platform: process.platform, homedir: homedir() });
});

afterEach(async () => {
  await secrets.delete('work');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the airlock command with the real keychain', () => {
  it('key set reads stdin; the key is in the keychain, not in any file, output or listing', async () => {
    expect((await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example'])).code).toBe(0);
    const set = await airlock(['key', 'set', 'work'], `Bearer ${SENTINEL_KEY}\n`);
    expect(set).toMatchObject({ code: 0 });
    expect(await secrets.get('work')).toBe(SENTINEL_KEY);

    const listed = await airlock(['profile', 'list']);
    expect(listed.stdout).toContain(`* work  Work  https://gw.example/v1  key: set, ends in ${SENTINEL_KEY.slice(-4)}`);

    for (const output of [set.stdout, set.stderr, listed.stdout, listed.stderr]) expect(findSentinel(output)).toBeNull();
    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const filePath = path.join(file.parentPath, file.name);
      expect({ filePath, leak: findSentinel(readFileSync(filePath)) }).toEqual({ filePath, leak: null });
    }
  });

  it('a failure is one line on stderr and exit code 1', async () => {
    const failed = await airlock(['key', 'set', 'nope'], SENTINEL_KEY);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airlock: no profile with id "nope"/)]);
    expect(findSentinel(failed.stdout + failed.stderr)).toBeNull();
  });
});
