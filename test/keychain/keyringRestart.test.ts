import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { addProfile } from '../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../proxy/app/profiles/configStore.ts';
import { generateToken } from '../../proxy/http/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { type PrivateKeyring, startPrivateKeyring } from '../support/privateKeyring.ts';

const fixture = path.join(import.meta.dirname, 'fixtures', 'airlockOnStuckKeychain.ts');

let keyring: PrivateKeyring | null = null;
let simulator: GatewaySimulator | null = null;
let dataDir = '';

afterEach(async () => {
  await keyring?.stop();
  await simulator?.close();
  keyring = null;
  simulator = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the keyring daemon restarting under a running Airlock (keytar in process, as the desktop app has it)', () => {
  it('keeps serving with the keys it read, and says a restart of Airlock reaches the new keyring, not that there is none', async () => {
    keyring = await startPrivateKeyring();
    simulator = await startGatewaySimulator();
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-keyring-restart-'));
    const clientToken = generateToken();
    const child = spawn(process.execPath, [fixture, dataDir, simulator.baseUrl, clientToken, '30000'], {
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
      // libsecret keeps the unique bus name of the daemon it first reached: a new daemon is not it.
      await keyring.restartKeyring();
      const store = openConfigStore(dataDir);
      await store.update((config) => addProfile(config, { id: 'home', name: 'Home', baseUrl: simulator!.baseUrl }));
      store.close();
      const reading = await next();
      expect(reading.keychainProblem).toContain('Restart Airlock');
      expect(reading.keychainProblem).not.toContain('Start a keyring');
      const answered = await rawRequest(`http://127.0.0.1:${started.port as number}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
        body: chatBody(),
      });
      expect(answered.status).toBe(200);
    } finally {
      child.kill();
      await exited;
    }
  });
});
