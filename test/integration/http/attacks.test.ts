import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientAuthenticator } from '../../../proxy/http/clientAuthenticator.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { createTargetResolver } from '../../../proxy/app/targetResolver.ts';
import { addClientToken, addProfile, removeClientToken } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore, type ConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { KeyCache } from '../../../proxy/app/secrets/keyCache.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP/1.1 exchange with full control over what an attacker controls: the Host header (or
 * none at all), the request target (absolute form included), every other header.
 */
function send(
  target: string,
  options: { method?: string; host?: string; headers?: Record<string, string>; body?: string },
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: options.host ?? `127.0.0.1:${proxy.port}`, ...options.headers };
    const req = request(
      { host: '127.0.0.1', port: proxy.port, method: options.method ?? 'GET', path: target, headers, setHost: false, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A request with no Host header at all, written by hand (Node's client always adds one). */
function sendWithoutHost(httpVersion: '1.0' | '1.1'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('request timed out')));
    // HTTP/1.0 without keep-alive, and Node's own 400, both close the connection after the answer.
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
    socket.end(`GET /v1/models HTTP/${httpVersion}\r\nAuthorization: Bearer ${clientToken}\r\nConnection: close\r\n\r\n`);
  });
}

let dataDir: string;
let gateway: GatewaySimulator;
let attackerUpstream: GatewaySimulator;
let config: ConfigStore;
let proxy: ProxyHandle;
let clientToken: string;
let revokedToken: string;
const responses: Exchange[] = [];

const chatBody = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });

beforeAll(async () => {
  gateway = await startGatewaySimulator();
  attackerUpstream = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-attacks-'));
  config = openConfigStore(dataDir);
  clientToken = generateToken();
  revokedToken = generateToken();
  await config.update((current) => {
    let next = addProfile(current, { id: 'gw', name: 'Gateway', baseUrl: gateway.baseUrl });
    next = addClientToken(next, tokenRecord('tool', clientToken, null, Date.now()));
    return addClientToken(next, tokenRecord('old', revokedToken, null, Date.now()));
  });
  await config.update((current) => removeClientToken(current, 'old'));
  const keys = new KeyCache(memorySecretStore({ gw: SENTINEL_KEY }));
  await keys.loadAll(['gw']);
  proxy = await startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    services: { authenticator: createClientAuthenticator(config), targets: createTargetResolver(config, keys) },
  });
});

afterAll(async () => {
  await proxy?.stop();
  await gateway?.close();
  await attackerUpstream?.close();
  config?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const authorized = (): Record<string, string> => ({ authorization: `Bearer ${clientToken}`, 'content-type': 'application/json' });

describe('requests that must never reach any upstream', () => {
  it.each([
    ['a rebound DNS name', () => ({ host: `localhost.evil.example:${proxy.port}`, headers: authorized() }), 403, 'forbidden_host'],
    ['a 127.* lookalike name', () => ({ host: `127.evil.example:${proxy.port}`, headers: authorized() }), 403, 'forbidden_host'],
    ['a foreign name', () => ({ host: 'evil.example', headers: authorized() }), 403, 'forbidden_host'],
    ['the right name on another port', () => ({ host: `127.0.0.1:${proxy.port + 1}`, headers: authorized() }), 403, 'forbidden_host'],
    ['a foreign Origin', () => ({ headers: { ...authorized(), origin: 'https://evil.example' } }), 403, 'forbidden_origin'],
    ['the null Origin', () => ({ headers: { ...authorized(), origin: 'null' } }), 403, 'forbidden_origin'],
    ['no client token', () => ({ headers: { 'content-type': 'application/json' } }), 401, 'client_unauthorized'],
    ['a revoked token as x-api-key', () => ({ headers: { 'x-api-key': revokedToken } }), 401, 'client_unauthorized'],
    ['a revoked token as api-key', () => ({ headers: { 'api-key': revokedToken } }), 401, 'client_unauthorized'],
    ['the gateway key itself as x-api-key', () => ({ headers: { 'x-api-key': SENTINEL_KEY } }), 401, 'client_unauthorized'],
    ['a made-up Bearer token', () => ({ headers: { authorization: `Bearer ${generateToken()}` } }), 401, 'client_unauthorized'],
  ])('%s', async (_label, options, status, code) => {
    const response = await send('/v1/chat/completions', { method: 'POST', body: chatBody(), ...options() });
    responses.push(response);
    expect(response.status).toBe(status);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code } });
    if (status === 401) expect(response.body).toContain('npx airlock token create');
    expect(gateway.received).toHaveLength(0);
    expect(attackerUpstream.received).toHaveLength(0);
  });

  it('a missing Host is refused by the guard (HTTP/1.0, where Host is optional)', async () => {
    const response = await sendWithoutHost('1.0');
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'forbidden', code: 'forbidden_host' } });
    expect(gateway.received).toHaveLength(0);
  });

  it('a missing Host on HTTP/1.1 is refused by the guard too', async () => {
    const response = await sendWithoutHost('1.1');
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'forbidden', code: 'forbidden_host' } });
    expect(gateway.received).toHaveLength(0);
  });

  it('an absolute-form request target naming another host is refused', async () => {
    const response = await send(`${attackerUpstream.baseUrl}/models`, { headers: authorized() });
    responses.push(response);
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'forbidden', code: 'forbidden_target' } });
    expect(gateway.received).toHaveLength(0);
    expect(attackerUpstream.received).toHaveLength(0);
  });

  it('a preflight from a foreign page gets 403 and no CORS allow headers', async () => {
    const response = await send('/v1/chat/completions', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });
    responses.push(response);
    expect(response.status).toBe(403);
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(gateway.received).toHaveLength(0);
  });

  it('no connection was ever opened to either upstream', () => {
    expect(gateway.openSockets()).toBe(0);
    expect(attackerUpstream.openSockets()).toBe(0);
  });
});

describe('attempts to redirect an accepted request change nothing', () => {
  it.each([
    ['body base_url and api_base', {}, { base_url: () => attackerUpstream.baseUrl, api_base: () => attackerUpstream.baseUrl }],
    ['X-Forwarded-Host and friends', { 'x-forwarded-host': 'ATTACKER', 'x-forwarded-proto': 'http', forwarded: 'host=ATTACKER' }, {}],
  ])('%s', async (_label, extraHeaders, bodyFields) => {
    gateway.reset();
    const attackerHost = new URL(attackerUpstream.url).host;
    const headers = Object.fromEntries(
      Object.entries(extraHeaders).map(([name, value]) => [name, value.replace('ATTACKER', attackerHost)]),
    );
    const body = chatBody(Object.fromEntries(Object.entries(bodyFields).map(([name, value]) => [name, value()])));
    const response = await send('/v1/chat/completions', { method: 'POST', headers: { ...authorized(), ...headers }, body });
    responses.push(response);
    expect(response.status).toBe(200);
    expect(gateway.received).toHaveLength(1);
    expect(gateway.received[0]).toMatchObject({ path: '/v1/chat/completions', authOk: true });
    expect(attackerUpstream.received).toHaveLength(0);
    expect(attackerUpstream.openSockets()).toBe(0);
  });
});

describe('where a client token may come', () => {
  // The openai SDKs' AzureOpenAI sends its key as `api-key` (node_modules/openai/azure.js, authHeaders).
  it("takes an Azure client's api-key header as the client token, and sends the gateway only the gateway key", async () => {
    gateway.reset();
    const response = await send('/v1/chat/completions', {
      method: 'POST',
      headers: { 'api-key': clientToken, 'content-type': 'application/json' },
      body: chatBody(),
    });
    responses.push(response);
    expect(response.status, response.body).toBe(200);
    expect(gateway.received).toHaveLength(1);
    expect(gateway.received[0]!.authOk).toBe(true);
    expect(gateway.received[0]!.headers['api-key']).toBeUndefined();
  });
});

describe('what the attacker saw', () => {
  it('no response carried the key or a CORS header', () => {
    expect(responses.length).toBeGreaterThan(10);
    for (const response of responses) {
      expect(findSentinel(`${JSON.stringify(response.headers)}\n${response.body}`)).toBeNull();
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
