import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { addProfile } from '../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../proxy/app/profiles/configStore.ts';
import { generateToken } from '../../proxy/http/clientTokens.ts';
import { startGatewaySimulator } from '../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type PrivateKeyring, startPrivateKeyring } from '../support/privateKeyring.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';

const fixture = path.join(import.meta.dirname, 'fixtures', 'cliOnStuckKeychain.ts');
const airlockFixture = path.join(import.meta.dirname, 'fixtures', 'airlockOnStuckKeychain.ts');
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

  it('a running Airlock keeps the keys it read when the keychain locks and a profile is added: locked reads as empty, not as removed', async () => {
    keyring = await startPrivateKeyring();
    const simulator = await startGatewaySimulator();
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-locked-running-'));
    const clientToken = generateToken();
    const child = spawn(process.execPath, [airlockFixture, dataDir, simulator.baseUrl, clientToken, String(ANSWER_WAIT_MS)], {
      env: keyring.env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    // Waited for before the data directory is removed: a child still shutting down writes into it.
    const exited = once(child, 'exit');
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async (): Promise<Record<string, unknown>> => JSON.parse((await lines.next()).value as string);
    try {
      expect(await next()).toEqual({ ready: true });
      child.stdin.write('start\n');
      const started = await next();
      const chat = () =>
        rawRequest(`http://127.0.0.1:${started.port as number}/v1/chat/completions`, {
          method: 'POST',
          headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
          body: chatBody(),
        });
      expect((await chat()).status).toBe(200);

      await keyring.lock();
      // Another profile makes the running Airlock read its keys again, from the locked keychain.
      const store = openConfigStore(dataDir);
      await store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: simulator.baseUrl }));
      store.close();
      expect(await next()).toEqual({ keychainProblem: expect.stringContaining('the OS keychain is locked') });

      const afterLock = await chat();
      expect(afterLock.status).toBe(200);
      expect(simulator.received).toHaveLength(2);
      expect(findSentinel(afterLock.body)).toBeNull();
    } finally {
      child.kill();
      await exited;
      await simulator.close();
    }
  });
});
