import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { freePort } from '../support/freePort.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateKeyring, startPrivateKeyring } from '../support/privateKeyring.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';

const fixture = path.join(import.meta.dirname, 'fixtures', 'cliOnStuckKeychain.ts');
/** The bound under test, short so the test is quick; production waits 30 s (boundedSecretStore.ts). */
const ANSWER_WAIT_MS = 1000;
/** Far past the bound: a command still running then is hung (its exit waits for the stuck call). */
const HUNG_AFTER_MS = 15_000;

let keyring: PrivateKeyring | null = null;
let dataDir = '';

interface Finished {
  code: number | string | null;
  stdout: string;
  stderr: string;
}

function airlock(args: string[], input = ''): Promise<Finished> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [fixture, String(ANSWER_WAIT_MS), '--data-dir', dataDir, ...args],
      { env: keyring!.env, timeout: HUNG_AFTER_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => resolve({ code: error ? (error.code ?? error.signal ?? null) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

afterEach(async () => {
  await keyring?.stop();
  keyring = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('airlock key set while the keychain does not answer', () => {
  it('fails within the bound with the cause and the fix, exits, and shows the key nowhere', async () => {
    keyring = await startPrivateKeyring();
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-stuck-cli-'));
    expect((await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1'])).code).toBe(0);
    // D-Bus stops answering: libsecret's call would wait for ever, and so would the process's exit.
    keyring.bus.kill('SIGSTOP');
    const set = await airlock(['key', 'set', 'work'], SENTINEL_KEY);
    expect(set.code).toBe(1);
    expect(set.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^airlock: the OS keychain did not answer within 1 s/)]);
    expect(set.stderr).toContain('The secret may not have been saved: save it again once the keychain answers');
    expect(findSentinel(set.stdout + set.stderr)).toBeNull();
    for (const entry of readdirSync(dataDir, { withFileTypes: true, recursive: true }).filter((candidate) => candidate.isFile())) {
      expect(findSentinel(readFileSync(path.join(entry.parentPath, entry.name)))).toBeNull();
    }
  });

  it('airlock serve started on it stops on Ctrl-C', async () => {
    keyring = await startPrivateKeyring();
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-stuck-serve-'));
    expect((await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1', '--activate'])).code).toBe(0);
    keyring.bus.kill('SIGSTOP');
    const serve = spawn(
      process.execPath,
      [fixture, String(ANSWER_WAIT_MS), '--data-dir', dataDir, 'serve', '--port', String(await freePort())],
      {
        env: keyring.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = once(serve, 'exit');
    // Far past the bound: a serve still running then is hung in its exit (the stuck call holds a thread).
    const hung = setTimeout(() => serve.kill('SIGKILL'), HUNG_AFTER_MS);
    try {
      const lines = createInterface({ input: serve.stdout })[Symbol.asyncIterator]();
      let line = '';
      while (!line.startsWith('  Note:')) {
        const next = await lines.next();
        if (next.done) throw new Error('airlock serve ended (or was killed as hung) before it served');
        line = next.value;
      }
      expect(line).toContain('did not answer within 1 s');
      serve.kill('SIGINT');
      expect(await exited).toEqual([0, null]);
    } finally {
      clearTimeout(hung);
    }
  });
});
