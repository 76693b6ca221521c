import { statusForClass } from '../../../proxy/core/errorClass.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { setUpMainProfileAndAgent, startControlHarness } from '../../support/controlHarness.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

let harness: Harness;
/** Where the redirects point: a host the key must never be sent to. */
let elsewhere: Server;
let elsewhereUrl = '';
let elsewhereHits = 0;

beforeAll(async () => {
  harness = await startHarness();
  elsewhere = createServer((_req, res) => {
    elsewhereHits += 1;
    res.end('{}');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await harness.close();
  await new Promise((resolve) => elsewhere.close(resolve));
});
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

/** A careless gateway puts the key it was sent into every header that can carry a URL or a token. */
function keyedHeaders(): Record<string, string> {
  const base64 = Buffer.from(SENTINEL_KEY).toString('base64');
  return {
    location: `${elsewhereUrl}/v1/chat/completions?key=${encodeURIComponent(SENTINEL_KEY)}`,
    link: `<${elsewhereUrl}/next?api_key=${SENTINEL_KEY}>; rel="next"`,
    refresh: `0; url=${elsewhereUrl}/?key=${SENTINEL_KEY}`,
    'www-authenticate': `Bearer realm="gateway", error="invalid_token", token="${SENTINEL_KEY}"`,
    'set-cookie': `session=${SENTINEL_KEY}; Path=/`,
    'x-debug-auth': `Basic ${base64}`,
    // A URL that carries credentials in its userinfo (RFC 3986 section 3.2.1), as a storage link may.
    'content-location': `http://airlock:${SENTINEL_KEY}@${elsewhereUrl.slice('http://'.length)}/v1/files/file-1`,
  };
}

async function send(method: string, path: string) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, {
    method,
    headers: JSON_HEADERS,
    ...(method === 'POST' ? { body: chatBody() } : {}),
  });
  return { response, end: await ended };
}

describe('a gateway that redirects, with the key in its headers', () => {
  it.each([
    ['POST', '/v1/chat/completions', 307, 'application/json'],
    ['GET', '/v1/models', 302, 'application/json'],
    ['GET', '/v1/files/file-1/content', 301, 'text/plain'],
    ['POST', '/v1/chat/completions', 302, 'text/html'],
    ['POST', '/v1/chat/completions', 401, 'application/json'],
    ['POST', '/v1/chat/completions', 308, 'application/json'],
    ['GET', '/v1/models', 308, 'application/json'],
  ])(
    '%s %s answered %i (%s): the client and the log see every header masked, and nothing is followed',
    async (method, path, status, type) => {
      harness.simulator.script({
        kind: 'text',
        status,
        contentType: type,
        text: type.includes('json') ? '{}' : 'moved',
        headers: keyedHeaders(),
      });
      const { response, end } = await send(method, path);
      // A redirect of a route that is no model API goes to the client as the gateway's answer, its Location masked.
      if (status < 400 && method === 'GET') {
        expect(response.status).toBe(status);
        expect(response.headers.location).toContain(`?key=${REDACTED}`);
      }
      // A model API that redirects has a wrong base URL: an error that says so, never a success in the log.
      if (status < 400 && method === 'POST') {
        expect(response.status).toBe(statusForClass('html_instead_of_json'));
        expect(end.errorClass).toBe('html_instead_of_json');
        expect(response.body).toMatch(/base URL/);
      }
      expect(findSentinel(JSON.stringify(response.headers))).toBeNull();
      expect(findSentinel(response.body)).toBeNull();
      expect(findSentinel(JSON.stringify({ ...end, bodies: { ...end.bodies, requestBody: null, responseBody: null } }))).toBeNull();
      expect(findSentinel(end.bodies.responseBody ?? '')).toBeNull();
      // undici follows no redirect by itself: the key went to the gateway once, and nowhere else.
      expect(harness.simulator.received.length).toBe(1);
      expect(elsewhereHits).toBe(0);
    },
  );
});

describe('the calls Airlock makes on its own, answered by a redirect to another host', () => {
  it('the Test button, the model list and a capability check follow none: the key goes to the gateway only', async () => {
    const control = await startControlHarness();
    try {
      await setUpMainProfileAndAgent(control);
      const redirect = { kind: 'text', status: 307, contentType: 'text/plain', text: 'moved', headers: keyedHeaders() } as const;
      control.simulator.script(redirect, redirect, redirect, redirect);
      const answers = [
        await control.api('/profiles/main/test', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini' }) }),
        await control.api('/models?refresh=1'),
        await control.api('/models/gpt-4o-mini/capabilities', { method: 'POST' }),
      ];
      for (const answer of answers)
        expect(findSentinel(JSON.stringify(Object.fromEntries(answer.headers)) + (await answer.text()))).toBeNull();
      expect(control.simulator.received.length).toBeGreaterThanOrEqual(3);
      expect(elsewhereHits).toBe(0);
    } finally {
      await control.close();
    }
  });
});
