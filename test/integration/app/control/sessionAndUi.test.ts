import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../../support/http.ts';
import { CONTROL_TOKEN, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

let harness: ControlHarness;
let uiDir: string;

beforeAll(async () => {
  uiDir = mkdtempSync(path.join(tmpdir(), 'airlock-ui-'));
  mkdirSync(path.join(uiDir, 'assets'));
  writeFileSync(
    path.join(uiDir, 'index.html'),
    '<!doctype html><title>Airlock</title><script type="module" src="/_airlock/assets/app-1a2b3c.js"></script>',
  );
  writeFileSync(path.join(uiDir, 'assets', 'app-1a2b3c.js'), 'console.log("window")');
  harness = await startControlHarness({ uiDir });
});

afterAll(async () => {
  await harness?.close();
  rmSync(uiDir, { recursive: true, force: true });
});

const codeOf = (loginUrl: string): string => new URL(loginUrl).hash.replace('#code=', '');

async function exchange(body: unknown): Promise<Response> {
  return fetch(`${harness.proxy.url}/_airlock/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('headless sign-in and the served window', () => {
  it('prints a login URL whose code sits in the fragment (never sent to the server)', () => {
    const loginUrl = harness.control.createLoginUrl();
    expect(loginUrl).toMatch(new RegExp(`^${harness.proxy.url}/_airlock/login#code=[A-Za-z0-9_-]{40,}$`));
  });

  it('exchanges a code once for an HttpOnly SameSite=Strict cookie that opens the API', async () => {
    const code = codeOf(harness.control.createLoginUrl());
    const first = await exchange({ code });
    expect(first.status).toBe(200);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^airlock_session=[^;]+; HttpOnly; SameSite=Strict; Path=\/_airlock/);
    const session = cookie.split(';')[0]!;

    const status = await fetch(`${harness.proxy.url}/_airlock/api/status`, { headers: { cookie: session } });
    expect(status.status).toBe(200);

    const again = await exchange({ code });
    expect(again.status).toBe(401);
    expect((await again.json()) as unknown).toMatchObject({
      error: { code: 'unauthorized', message: expect.stringMatching(/already used or has expired/) },
    });
  });

  it.each([
    ['a made-up code', { code: 'x'.repeat(43) }],
    ['a wrong control token', { controlToken: 'alkc_wrong' }],
    ['a forged cookie', null],
  ])('refuses %s', async (_name, body) => {
    if (body === null) {
      const forged = await fetch(`${harness.proxy.url}/_airlock/api/status`, { headers: { cookie: 'airlock_session=forged' } });
      expect(forged.status).toBe(401);
      return;
    }
    expect((await exchange(body)).status).toBe(401);
  });

  it('accepts the control token typed into the sign-in form', async () => {
    const response = await exchange({ controlToken: CONTROL_TOKEN });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(/HttpOnly/);
  });

  it.each(['/_airlock/', '/_airlock/login'])('serves the window at %s with a strict CSP and no caching of the page', async (pagePath) => {
    const page = await rawRequest(`${harness.proxy.url}${pagePath}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Airlock</title>');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });

  it('caches hashed assets for a year', async () => {
    const asset = await rawRequest(`${harness.proxy.url}/_airlock/assets/app-1a2b3c.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toMatch(/max-age=31536000.*immutable/);
  });

  it('refuses the control API to a foreign web page', async () => {
    const response = await rawRequest(`${harness.proxy.url}/_airlock/api/status`, {
      headers: { authorization: `Bearer ${CONTROL_TOKEN}`, origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
  });
});
