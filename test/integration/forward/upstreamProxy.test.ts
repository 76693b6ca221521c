import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MIN_IDLE_BEFORE_CLOSE_MS } from '../../../proxy/forward/upstreamExecution.ts';
import { addClientToken, addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { spawnAirlock, type AirlockProcess } from '../../support/airlockBin.ts';
import { freePort } from '../../support/freePort.ts';
import { type RaceServer, startRaceServer } from '../../support/raceServer.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { GATEWAY_HOST, startTinyproxy, type Tinyproxy } from '../../support/tinyproxy.ts';
import { issueServerCertificate, makeCertificateAuthority } from '../../support/tlsCertificates.ts';

/**
 * Behind a company's HTTP proxy the tools reach the gateway through it, and so must Airlock: it
 * reads HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY as curl does. The proxy is a real one
 * (tinyproxy), the gateway the simulator over TLS with a private CA (NODE_EXTRA_CA_CERTS) under a
 * name only the network beyond the proxy resolves (GATEWAY_HOST), and Airlock `airlock serve` as a
 * user starts it, with the key from AIRLOCK_API_KEY.
 */
const PROXY_USER = { user: 'alice', password: 'sentinel-proxy-password-4b1e' };
const clientToken = generateToken();
/**
 * A port nothing listens on (tcpmux's, privileged): a free port picked at random may be taken by another
 * test file's server by the time it is used.
 */
const CLOSED_PORT = 1;
/** Whatever a failure, the client answers at once: as the OpenAI SDK, it retries by itself. */
const RETRIES_ITSELF = { 'x-stainless-retry-count': '0' };

let dir: string;
let caFile: string;
let tlsGateway: GatewaySimulator;
let plainGateway: GatewaySimulator;
let authProxy: Tinyproxy;
let serving: AirlockProcess | null = null;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'airlock-upstream-proxy-'));
  const ca = makeCertificateAuthority(dir, 'Airlock Test Proxy CA');
  caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, ca.certPem);
  tlsGateway = await startGatewaySimulator({ validKeys: [SENTINEL_KEY], tls: issueServerCertificate(dir, ca, 'gateway') });
  plainGateway = await startGatewaySimulator({ validKeys: [SENTINEL_KEY] });
  authProxy = await startTinyproxy({ basicAuth: PROXY_USER });
});
afterEach(async () => {
  if (serving !== null) {
    serving.child.kill('SIGTERM');
    await serving.exited;
    serving = null;
  }
  tlsGateway.reset();
  plainGateway.reset();
});
afterAll(async () => {
  await authProxy.stop();
  await tlsGateway.close();
  await plainGateway.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The simulator's base URL under the name only the network beyond the proxy resolves. */
function beyondProxy(gateway: GatewaySimulator | RaceServer): string {
  return ('baseUrl' in gateway ? gateway.baseUrl : gateway.url).replace('127.0.0.1', GATEWAY_HOST);
}

/**
 * `airlock serve` with one profile for the gateway (the key from AIRLOCK_API_KEY), its environment on
 * top of a clean one (no proxy variable of this machine's).
 */
async function serve(gatewayBaseUrl: string, env: Record<string, string>, connectTimeoutMs = 10_000): Promise<number> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(dir, 'data-'));
  const store = openConfigStore(dataDir);
  await store.update((config) =>
    addProfile(
      config,
      { id: 'main', name: 'Main', baseUrl: gatewayBaseUrl, timeouts: { connectTimeoutMs, idleTimeoutMs: 60_000, totalTimeoutMs: 600_000 } },
      { activate: true },
    ),
  );
  await store.update((config) => addClientToken(config, tokenRecord('tool', clientToken, null, Date.now())));
  store.close();
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));
  serving = spawnAirlock(['--data-dir', dataDir, 'serve', '--port', String(port)], {
    ...base,
    AIRLOCK_API_KEY: SENTINEL_KEY,
    NODE_EXTRA_CA_CERTS: caFile,
    ...env,
  });
  await serving.printed(/Airlock is serving on/);
  return port;
}

function chat(port: number, body = chatBody(), headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}`, ...headers },
    body,
  });
}

function errorOf(answer: RawResponse): { message: string; code: string } {
  return (JSON.parse(answer.body) as { error: { message: string; code: string } }).error;
}

/** What the user sees of the run: its output. Neither the key nor the proxy's password is in it. */
function expectNoSecretsShown(): void {
  const output = `${serving?.stdout() ?? ''}${serving?.stderr() ?? ''}`;
  expect(findSentinel(output)).toBeNull();
  expect(output).not.toContain(PROXY_USER.password);
}

describe('gateways reached through an HTTP proxy', () => {
  it('sends to an https gateway through the proxy HTTPS_PROXY names, with its credentials, and says so at start', async () => {
    const port = await serve(beyondProxy(tlsGateway), { HTTPS_PROXY: authProxy.url(PROXY_USER) });
    const before = authProxy.connects().length;

    const whole = await chat(port);
    const streamed = await chat(port, chatBody({ stream: true }));

    expect(whole.status).toBe(200);
    expect(streamed.status).toBe(200);
    expect(streamed.body).toContain('data: [DONE]');
    expect(tlsGateway.received.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    // One tunnel, kept alive for the second request: the proxy sees the gateway's host and port only.
    expect(authProxy.connects().slice(before)).toEqual([new URL(beyondProxy(tlsGateway)).host]);
    expect(serving?.stdout()).toContain(`Reaching https:// gateways through http://127.0.0.1:${authProxy.port} (HTTPS_PROXY).`);
    // The tools started in this environment would send their requests for Airlock to the proxy too.
    expect(serving?.stdout()).toContain(
      `Note: Tools started with this environment send their requests for Airlock, with its client token and your prompts, through the proxy http://127.0.0.1:${authProxy.port} (HTTPS_PROXY)`,
    );
    expectNoSecretsShown();
  });

  it('sends to an http gateway through HTTP_PROXY, in a tunnel', async () => {
    const port = await serve(beyondProxy(plainGateway), { HTTP_PROXY: authProxy.url(PROXY_USER) });
    const before = authProxy.connects().length;

    expect((await chat(port)).status).toBe(200);

    expect(authProxy.connects().slice(before)).toEqual([new URL(beyondProxy(plainGateway)).host]);
  });

  it('resends a chat whose kept-alive tunnel the gateway closed idle as the request reached it, in a new tunnel', async () => {
    const gateway = await startRaceServer(({ onConnection }) => (onConnection === 2 ? 'close' : 'answer'));
    try {
      const port = await serve(beyondProxy(gateway), { HTTP_PROXY: authProxy.url(PROXY_USER) });
      const before = authProxy.connects().length;
      expect((await chat(port)).status).toBe(200);
      // As long as servers let a connection sit before closing it idle: only then is its close the race.
      await delay(MIN_IDLE_BEFORE_CLOSE_MS + 50);

      // A client that retries by itself gets no retry of Airlock's policy: only the idle close's resend.
      const answer = await chat(port, chatBody(), RETRIES_ITSELF);

      expect(answer.status).toBe(200);
      expect(gateway.requests).toEqual([
        { connection: 1, onConnection: 1 },
        { connection: 1, onConnection: 2 },
        { connection: 2, onConnection: 1 },
      ]);
      expect(authProxy.connects().slice(before)).toHaveLength(2);
    } finally {
      await gateway.close();
    }
  });

  it.each<[string, Record<string, string>]>([
    ['a gateway NO_PROXY names', { HTTPS_PROXY: 'proxy', NO_PROXY: `localhost,127.0.0.1,.airlock.test` }],
    ['an https gateway where only HTTP_PROXY is set, as curl does', { HTTP_PROXY: 'proxy' }],
  ])('goes directly to %s: here its name resolves only beyond the proxy', async (_name, env) => {
    const named = Object.fromEntries(
      Object.entries(env).map(([name, value]) => [name, value === 'proxy' ? authProxy.url(PROXY_USER) : value]),
    );
    const port = await serve(beyondProxy(tlsGateway), named);
    const before = authProxy.connects().length;

    const answer = await chat(port, chatBody(), RETRIES_ITSELF);

    expect(answer.status).toBe(502);
    expect(errorOf(answer).code).toBe('ENOTFOUND');
    expect(authProxy.connects().slice(before)).toEqual([]);
    expect(serving?.stdout().includes('Tools started with this environment')).toBe(!('NO_PROXY' in env));
  });

  it('reaches a gateway on this computer directly, whatever the proxy variables say', async () => {
    const port = await serve(tlsGateway.baseUrl, { HTTPS_PROXY: `http://127.0.0.1:${CLOSED_PORT}` });

    expect((await chat(port)).status).toBe(200);
  });
});

describe('a proxy that fails Airlock', () => {
  it('wanting credentials: the client gets the cause and fix, naming the proxy; nothing reaches the gateway, and nothing is resent', async () => {
    const port = await serve(beyondProxy(tlsGateway), { HTTPS_PROXY: authProxy.url() });
    const before = authProxy.connects().length;

    // A plain client (no retries of its own): Airlock's retries would apply.
    const answer = await chat(port);

    expect(answer.status).toBe(502);
    const error = errorOf(answer);
    expect(error.code).toBe('proxy_refused');
    expect(error.message).toContain(`through the proxy http://127.0.0.1:${authProxy.port}`);
    expect(error.message).toContain("the proxy answered 407 to Airlock's CONNECT");
    expect(error.message).toContain("asks for the proxy's user name and password");
    expect(tlsGateway.received).toHaveLength(0);
    expect(authProxy.connects().slice(before)).toHaveLength(1);
    expectNoSecretsShown();
  });

  it("refusing the gateway's port by its rules (403): the answer names the proxy's rules", async () => {
    const strictProxy = await startTinyproxy({ connectPorts: [443] });
    try {
      const port = await serve(beyondProxy(tlsGateway), { https_proxy: strictProxy.url() });

      const answer = await chat(port);

      expect(answer.status).toBe(502);
      expect(errorOf(answer)).toMatchObject({ code: 'proxy_refused', message: expect.stringContaining('the proxy answered 403') });
      expect(errorOf(answer).message).toContain('many proxies open tunnels to port 443 alone');
      expect(strictProxy.connects()).toHaveLength(1);
      expect(tlsGateway.received).toHaveLength(0);
    } finally {
      await strictProxy.stop();
    }
  });

  it('not running: the answer says Airlock could not reach the proxy, not the gateway', async () => {
    const port = await serve(beyondProxy(tlsGateway), { HTTPS_PROXY: `http://127.0.0.1:${CLOSED_PORT}` });

    const answer = await chat(port, chatBody(), RETRIES_ITSELF);

    expect(answer.status).toBe(502);
    const error = errorOf(answer);
    expect(error.code).toBe('proxy_unreachable');
    expect(error.message).toContain('Airlock could not connect to the HTTP proxy');
    expect(error.message).toContain(`ECONNREFUSED 127.0.0.1:${CLOSED_PORT}`);
    expect(tlsGateway.received).toHaveLength(0);
  });

  it("taking the connection and never answering: a connect timeout that names the proxy, within the profile's connect timeout", async () => {
    const silent = net.createServer(() => undefined);
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const port = await serve(beyondProxy(tlsGateway), { HTTPS_PROXY: silentUrl }, 1000);

      // Bounded by the 1 s connect timeout: undici's own wait for a CONNECT's answer is 300 s.
      const answer = await chat(port, chatBody(), RETRIES_ITSELF);

      expect(answer.status).toBe(504);
      const error = errorOf(answer);
      expect(error.code).toBe('proxy_no_answer');
      expect(error.message).toContain('did not answer within connectTimeoutMs');
      expect(error.message).not.toContain('idleTimeoutMs');
    } finally {
      silent.close();
    }
  });

  it('that the gateway is down behind: the proxy could not connect to the gateway', async () => {
    const port = await serve(`https://${GATEWAY_HOST}:${CLOSED_PORT}/v1`, { HTTPS_PROXY: authProxy.url(PROXY_USER) });

    const answer = await chat(port, chatBody(), RETRIES_ITSELF);

    expect(answer.status).toBe(502);
    expect(errorOf(answer)).toMatchObject({
      code: 'proxy_gateway_unreachable',
      message: expect.stringContaining('could not connect to the gateway'),
    });
    expectNoSecretsShown();
  });

  it('named as a SOCKS proxy, which Airlock cannot use: a notice at start, and gateways are reached directly', async () => {
    const port = await serve(tlsGateway.baseUrl, { ALL_PROXY: `socks5://${PROXY_USER.user}:${PROXY_USER.password}@127.0.0.1:1080` });

    expect((await chat(port)).status).toBe(200);
    expect(serving?.stdout()).toMatch(
      /Note: ALL_PROXY names a socks5 proxy \(socks5:\/\/127\.0\.0\.1:1080\); Airlock speaks only to http:\/\/ and https:\/\/ proxies/,
    );
    expectNoSecretsShown();
  });
});
