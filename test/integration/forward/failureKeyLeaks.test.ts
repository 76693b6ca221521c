import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * What a failed exchange passes on from the gateway (its Retry-After, its request id, its error
 * body) never carries the key, to the client or to the log, even from a gateway that echoes the
 * key it was sent everywhere it can.
 */

let gateway: Server;
let harness: Harness;

beforeAll(async () => {
  gateway = createServer((req, res) => {
    const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': `1 ${key}`, 'x-request-id': `req_${key}` });
    res.end(JSON.stringify({ error: { message: `slow down, ${key}`, type: 'rate_limit', code: key } }));
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const { port } = gateway.address() as AddressInfo;
  harness = await startHarness({
    profile: { baseUrl: `http://127.0.0.1:${port}/v1`, modelRoutes: [{ pattern: 'claude-*', target: 'gpt-4o-mini' }] },
  });
});
afterAll(async () => {
  await harness.close();
  await new Promise((resolve) => gateway.close(resolve));
});

describe('a gateway error that echoes the key', () => {
  it.each([
    ['/v1/chat/completions', JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })],
    ['/v1/messages', JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })],
  ])('reaches a %s client and the log without it', async (path, body) => {
    const ended = harness.nextEnd();
    // The client retries by itself, so Airlock answers the first 429 at once.
    const response = await rawRequest(`${harness.proxy.url}${path}`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'x-stainless-retry-count': '0' },
      body,
    });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBeDefined();
    expect(findSentinel(JSON.stringify(response.headers))).toBeNull();
    expect(findSentinel(response.body)).toBeNull();
    const end = await ended;
    expect(findSentinel(JSON.stringify({ ...end, bodies: undefined }))).toBeNull();
    expect(findSentinel(JSON.stringify(end.bodies.responseHeaders))).toBeNull();
    expect(findSentinel(end.bodies.responseBody ?? '')).toBeNull();
  });
});
