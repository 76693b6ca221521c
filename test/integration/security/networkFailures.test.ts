import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/freePort.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/** Takes each connection and resets it at once: a gateway (or a firewall) dropping it. */
let resetting: Server;
/** Plain http where the base URL says https: the TLS handshake fails. */
let plainHttp: ReturnType<typeof createHttpServer>;

const portOf = (server: { address(): unknown }): number => (server.address() as AddressInfo).port;

beforeAll(async () => {
  resetting = createServer((socket) => socket.resetAndDestroy());
  plainHttp = createHttpServer((_req, res) => res.end('{}'));
  await Promise.all([resetting, plainHttp].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
});
afterAll(async () => {
  await Promise.all([resetting, plainHttp].map((server) => new Promise((resolve) => server.close(resolve))));
});

/**
 * A base URL as a hand-edited config file may hold it (the window and the CLI refuse both): the
 * key as a password and in the query. Neither must come back in what a failure says.
 */
const keyed = (origin: string): string => `${origin.replace('//', `//airlock:${SENTINEL_KEY}@`)}/v1?key=${SENTINEL_KEY}`;

/** One chat request through a harness whose gateway is at `baseUrl` (which fails), with no retry: its answer and `end` event. */
async function sendThrough(baseUrl: string) {
  const harness = await startHarness({ profile: { baseUrl, retry: { maxRetries: 0, maxRetryAfterMs: 0 } } });
  try {
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    return { response, end: await ended, events: [...harness.events], profileName: harness.profile.name };
  } finally {
    await harness.close();
  }
}

describe('an upstream connection that fails: what the client, the log and the events get', () => {
  it.each([
    ['refused', async () => `http://127.0.0.1:${await freePort()}/v1`, 'ECONNREFUSED'],
    ['refused, key in the base URL', async () => keyed(`http://127.0.0.1:${await freePort()}`), 'ECONNREFUSED'],
    ['reset', async () => `http://127.0.0.1:${portOf(resetting)}/v1`, 'ECONNRESET'],
    ['TLS to a plain port', async () => keyed(`https://127.0.0.1:${portOf(plainHttp)}`), 'ERR_SSL_WRONG_VERSION_NUMBER'],
    ['DNS', async () => keyed('http://airlock-gateway.invalid'), /^(ENOTFOUND|EAI_AGAIN)$/],
  ])('%s: the cause is named, the key is nowhere', async (_name, baseUrl, code) => {
    const { response, end, events, profileName } = await sendThrough(await baseUrl());
    expect(response.status).toBe(502);
    const { error } = JSON.parse(response.body) as { error: { type: string; code: string; message: string } };
    expect(error.type).toBe('network');
    expect(error.code).toMatch(code);
    expect(findSentinel(JSON.stringify(response.headers))).toBeNull();
    expect(findSentinel(response.body)).toBeNull();
    // The failure is the connection's, in Node's words, not the gateway's; and which gateway it was.
    expect(end.errorMessage).toContain(' Connection error: ');
    expect(end.errorMessage).not.toContain('Gateway said');
    expect(error.message).toContain(`(profile "${profileName}", base URL `);
    expect(findSentinel(JSON.stringify(events))).toBeNull();
  });

  // A Basic-auth proxy's password, a relay's query token: no key by their shape, nor the profile's key.
  it('a base URL holding a password and a token of another kind: neither comes back', async () => {
    const other = 'hunter2-corp-pass';
    const baseUrl = `http://user:${other}@127.0.0.1:${await freePort()}/v1?token=${other}`;
    const { response, end, events } = await sendThrough(baseUrl);
    expect(response.status).toBe(502);
    expect(response.body).toContain('base URL http://[redacted]@127.0.0.1:');
    expect(response.body).not.toContain(other);
    expect(JSON.stringify(end)).not.toContain(other);
    expect(JSON.stringify(events)).not.toContain(other);
  });
});
