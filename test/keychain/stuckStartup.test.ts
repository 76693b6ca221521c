import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { generateToken } from '../../proxy/http/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { type PrivateKeyring, startPrivateKeyring } from '../support/privateKeyring.ts';
import { findSentinel } from '../support/sentinel.ts';

const fixture = path.join(import.meta.dirname, 'fixtures', 'airlockOnStuckKeychain.ts');
/** The bound under test, short so the test is quick; production waits 30 s (boundedSecretStore.ts). */
const ANSWER_WAIT_MS = 1000;

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

describe('Airlock starting while the keychain does not answer', () => {
  it('starts, answers clients with a retryable error naming the cause, and uses the key once the keychain answers', async () => {
    keyring = await startPrivateKeyring();
    simulator = await startGatewaySimulator();
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-stuck-start-'));
    const clientToken = generateToken();
    const child = spawn(process.execPath, [fixture, dataDir, simulator.baseUrl, clientToken, String(ANSWER_WAIT_MS)], {
      env: keyring.env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    // Waited for before the data directory is removed: a child still shutting down writes into it.
    const exited = once(child, 'exit');
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async (): Promise<Record<string, unknown>> => JSON.parse((await lines.next()).value as string);
    try {
      expect(await next()).toEqual({ ready: true });
      // D-Bus stops answering: the key's reading would wait for ever.
      keyring.bus.kill('SIGSTOP');
      child.stdin.write('start\n');
      const started = await next();
      expect(started.notices).toContainEqual(expect.stringContaining('did not answer within 1 s'));

      const url = `http://127.0.0.1:${started.port as number}/v1/chat/completions`;
      const headers = { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` };
      const refused = await rawRequest(url, { method: 'POST', headers, body: chatBody() });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      const error = (JSON.parse(refused.body) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('keychain_not_answering');
      expect(error.message).toContain('Airlock has not read the gateway key of profile "main" yet');
      expect(error.message).toContain('unlock');
      // Claude Code speaks Messages: the same refusal in Anthropic's shape, a status its SDK retries.
      const messages = await rawRequest(`http://127.0.0.1:${started.port as number}/v1/messages`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'x-api-key': clientToken, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(messages.status).toBe(503);
      expect(JSON.parse(messages.body)).toMatchObject({
        type: 'error',
        error: { type: 'api_error', message: expect.stringContaining('unlock') },
      });
      expect(simulator.received).toHaveLength(0);

      keyring.bus.kill('SIGCONT');
      // The reading that hung returns; the next reading finds the key.
      let reading = await next();
      while (reading.keychainProblem !== null) reading = await next();
      const answered = await rawRequest(url, { method: 'POST', headers, body: chatBody() });
      expect(answered.status).toBe(200);
      expect(simulator.received).toHaveLength(1);
      expect(findSentinel(refused.body + messages.body + answered.body)).toBeNull();
    } finally {
      child.kill();
      await exited;
    }
  });
});
