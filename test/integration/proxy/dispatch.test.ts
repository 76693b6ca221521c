import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

// Forwarded requests bypass Express; these pin down that the split changes nothing a client sees.
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

describe('request dispatch', () => {
  it.each(['/favicon.ico', '/FAVICON.ICO', '/favicon.ico/'])('answers %s itself with 204', async (path) => {
    const response = await rawRequest(`${harness.proxy.url}${path}`);
    expect(response.status).toBe(204);
    expect(harness.simulator.received).toHaveLength(0);
  });

  it.each<[string, string]>([
    ['POST', '/'],
    ['GET', '/favicon.ico.png'],
    ['GET', '/v1/_airlock'],
  ])('forwards %s %s, which no local route answers', async (method, path) => {
    const response = await rawRequest(`${harness.proxy.url}${path}`, {
      method,
      headers: JSON_HEADERS,
      ...(method === 'POST' ? { body: chatBody() } : {}),
    });
    expect(response.headers['x-airlock-request-id']).toMatch(/^alk_/);
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('forwards an unknown path under the control prefix when no control router is mounted', async () => {
    const response = await rawRequest(`${harness.proxy.url}/_airlock/api/status`);
    expect(response.headers['x-airlock-request-id']).toMatch(/^alk_/);
    expect(harness.simulator.received).toHaveLength(1);
  });

  it.each<[string, Record<string, string>, string]>([
    ['a foreign Host', { host: 'evil.example' }, 'forbidden_host'],
    ['a foreign Origin', { origin: 'https://evil.example' }, 'forbidden_origin'],
  ])('refuses %s on a forwarding path before anything is sent', async (_label, headers, code) => {
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...headers },
      body: chatBody(),
    });
    expect(response.status).toBe(403);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'forbidden', code } });
    expect(harness.simulator.received).toHaveLength(0);
  });
});

describe('a failure inside the forward handler', () => {
  let proxy: ProxyHandle;

  beforeAll(async () => {
    const profile = profileSchema.parse({ id: 'broken', name: 'Broken', baseUrl: 'http://127.0.0.1:9/v1' });
    proxy = await startServer({
      commandHint: PLAIN_HINT,
      port: 0,
      services: {
        authenticator: {
          authenticate: () => {
            throw new Error(`identity store unreadable near ${SENTINEL_KEY}`);
          },
        },
        targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
      },
    });
  });
  afterAll(async () => {
    await proxy.stop();
  });

  it('answers a generic JSON 500 that leaks nothing', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await rawRequest(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody() });
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({
      error: {
        message:
          "Airlock failed unexpectedly; the request was not completed. Airlock's notices (in its window, or on the terminal it runs in) say why.",
        type: 'internal',
        code: 'internal',
      },
    });
    expect(response.body).not.toContain(SENTINEL_KEY);
    // It failed before its row began: an id would name no row (review R).
    expect(response.headers['x-airlock-request-id']).toBeUndefined();
    // No run gave the server a place to report to: stderr, as `airlock serve` had it.
    expect(consoleError).toHaveBeenCalledWith(
      expect.stringMatching(/^\[airlock\] a request failed unexpectedly: identity store unreadable/),
    );
    expect(JSON.stringify(consoleError.mock.calls)).not.toContain(SENTINEL_KEY);
    consoleError.mockRestore();
  });
});
