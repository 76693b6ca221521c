import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateToken, tokenRecord } from '../../../proxy/access/clientTokens.ts';
import { addClientToken, addProfile } from '../../../proxy/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../proxy/runtime/startAirlock.ts';
import { gatewayKeyAccount } from '../../../proxy/secrets/secretStore.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

let simulator: GatewaySimulator;
let airlock: Airlock;
let dataDir: string;
const token = generateToken();
const seen: string[] = [];
const consoleOutput: string[] = [];

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      consoleOutput.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    });
  }
  simulator = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-sentinel-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: simulator.baseUrl, modelRoutes: [{ pattern: 'claude-*', target: 'gpt-4o-mini' }] }, { activate: true }));
  await store.update((config) => addClientToken(config, tokenRecord('sweep', token, null, Date.now())));
  store.close();
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY }) });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * `echoes`: the client itself pasted the key into its prompt, and the model's answer may quote it
 * back; that answer is the client's own data and is passed on untouched, so only its headers count.
 */
async function call(pathName: string, options: { method?: string; headers?: Record<string, string>; body?: string; echoes?: boolean } = {}): Promise<void> {
  const response = await rawRequest(`${airlock.proxy.url}${pathName}`, { ...options, headers: { authorization: `Bearer ${token}`, ...JSON_HEADERS, ...options.headers } });
  seen.push(JSON.stringify(response.headers));
  if (!options.echoes) seen.push(response.body);
}

describe('the gateway key never leaves the keychain and the upstream header', () => {
  it('is absent from every response, console line and file after a full session', async () => {
    const pasted = `my key is ${SENTINEL_KEY}, url-encoded ${encodeURIComponent(SENTINEL_KEY)}, base64 ${Buffer.from(SENTINEL_KEY).toString('base64')}`;
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ messages: [{ role: 'user', content: pasted }] }), echoes: true });
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ stream: true, messages: [{ role: 'user', content: pasted }] }), echoes: true });
    simulator.script({ kind: 'html' });
    await call('/v1/models');
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ model: 'unknown-model' }) });
    await call('/v1/messages', { method: 'POST', headers: { 'x-api-key': token }, body: JSON.stringify({ model: 'claude-x', max_tokens: 16, stream: true, messages: [{ role: 'user', content: pasted }] }), echoes: true });
    await call('/v1/responses', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', input: pasted }), echoes: true });
    await call('/v1/embeddings', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', input: pasted }), echoes: true });
    await call('/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${SENTINEL_KEY}` }, body: chatBody() });
    // An image answer that echoes the pasted key is neither stored for a replay nor replayed.
    const image = { method: 'POST', headers: { 'idempotency-key': 'sweep-image' }, body: JSON.stringify({ model: 'gpt-image-1', prompt: pasted }), echoes: true };
    await call('/v1/images/generations', image);
    await call('/v1/images/generations', image);
    // Last, because a rejected key opens the profile's circuit breaker for the requests after it.
    simulator.script({ kind: 'status', status: 401 });
    await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
    await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
    await airlock.log.flush();

    const control = { authorization: `Bearer ${airlock.controlToken}` };
    const page = await rawRequest(`${airlock.proxy.url}/_airlock/api/requests?limit=100`, { headers: control });
    seen.push(page.body);
    for (const item of (JSON.parse(page.body) as { items: { id: string }[] }).items) {
      seen.push((await rawRequest(`${airlock.proxy.url}/_airlock/api/requests/${item.id}`, { headers: control })).body);
      for (const part of ['request', 'response', 'events']) {
        seen.push((await rawRequest(`${airlock.proxy.url}/_airlock/api/requests/${item.id}/body/${part}`, { headers: control })).body);
      }
    }
    for (const endpoint of ['status', 'profiles', 'tokens', 'spend', 'models']) {
      seen.push((await rawRequest(`${airlock.proxy.url}/_airlock/api/${endpoint}`, { headers: control })).body);
    }
    await airlock.stop();

    expect(seen.length).toBeGreaterThan(20);
    expect(seen.map((text) => findSentinel(text)).filter(Boolean)).toEqual([]);
    expect(findSentinel(consoleOutput.join(''))).toBeNull();
    const leakingFiles = filesUnder(dataDir).filter((file) => findSentinel(readFileSync(file)) !== null);
    expect(leakingFiles).toEqual([]);
    // The key did reach the gateway, as the Authorization header and nowhere else.
    expect(simulator.received.filter((received) => received.authOk).length).toBeGreaterThanOrEqual(7);
  });
});
