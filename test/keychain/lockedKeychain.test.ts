import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateKeyring, startPrivateKeyring } from '../support/privateKeyring.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';

const fixture = path.join(import.meta.dirname, 'fixtures', 'cliOnStuckKeychain.ts');
const ANSWER_WAIT_MS = 30_000;

let keyring: PrivateKeyring | null = null;
let dataDir = '';

function airlock(args: string[], input = ''): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [fixture, String(ANSWER_WAIT_MS), '--data-dir', dataDir, ...args],
      { env: keyring!.env },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

afterEach(async () => {
  await keyring?.stop();
  keyring = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a locked keychain', () => {
  it('a key save says the keychain is locked and how to unlock it, not that there is none', async () => {
    keyring = await startPrivateKeyring();
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-locked-keychain-'));
    expect((await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1'])).code).toBe(0);
    // No display here, so gnome-keyring's unlock prompt fails at once, as one the user dismissed.
    await keyring.lock();
    const set = await airlock(['key', 'set', 'work'], SENTINEL_KEY);
    expect(set.code).toBe(1);
    expect(set.stderr).toMatch(/^airlock: the OS keychain is locked \(Cannot create an item in a locked collection\)\. Unlock it/);
    expect(set.stderr).not.toContain('no OS keychain');
    expect(findSentinel(set.stdout + set.stderr)).toBeNull();
  });
});
