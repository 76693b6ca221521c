import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTokenAccount } from '../../proxy/contracts/secretStore.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';
import { axeViolations, sidewaysOverflow } from './support/pageChecks.ts';
import { createClientToken, openWindowSession, readClipboard, type WindowSession } from './support/windowSession.ts';

/**
 * Issue 21, "Nothing breaks the window": the proxy going away, client tokens, profile switches while
 * agents run, the pause alarm, Connect by keyboard and at 900x600, and the compressed first load.
 */
let session: WindowSession;
let page: Page;

function chatWith(token: string, overrides: Record<string, unknown> = {}) {
  return rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(overrides),
  });
}

const SCREENS = ['live', 'spend', 'profiles', 'models', 'connect'] as const;

beforeAll(async () => {
  session = await openWindowSession({ simulator: { streamChunkCount: 40, streamChunkIntervalMs: 100 } });
  page = session.page;
});

afterAll(async () => {
  await session?.close();
});

describe('the first load', () => {
  it('serves the scripts compressed and marks the first screen after sign-in', async () => {
    await page.goto(session.harness.control.createLoginUrl());
    await page.locator('.status-bar').getByText('Profile:').waitFor();
    const firstScreenMs = await page.evaluate(() => performance.getEntriesByName('airlock:first-screen')[0]?.startTime ?? null);
    expect(firstScreenMs).not.toBeNull();
    // The figure the issue asks for (reported, not asserted: a test never times the machine).
    console.info(`first screen after sign-in: ${Math.round(firstScreenMs ?? 0)} ms from navigation start`);
    const scripts = await page.evaluate(() =>
      [
        ...document.querySelectorAll<HTMLScriptElement | HTMLLinkElement>('script[src], link[rel="stylesheet"], link[rel="modulepreload"]'),
      ].map((element) => ('src' in element ? element.src : element.href)),
    );
    expect(scripts.length).toBeGreaterThan(1);
    for (const url of scripts) {
      const encoding = await page.evaluate(
        async (asset) => (await fetch(asset, { cache: 'no-store' })).headers.get('content-encoding'),
        url,
      );
      // Chromium offers brotli over HTTPS only; over the loopback's plain HTTP it gets gzip.
      expect(`${url}: ${encoding}`).toMatch(/: (br|gzip)$/);
    }
  });
});

describe('the proxy going away', () => {
  it('keeps the window, explains a screen whose code could not load, and recovers by itself when the proxy is back', async () => {
    // The Spend screen's code was not loaded yet (the idle prefetch after a fresh load fails too)…
    const spendChunk = '**/_airlock/assets/SpendScreen-*.js';
    await page.route(spendChunk, (route) => route.abort('connectionrefused'));
    await page.goto(session.screenUrl('live'));
    await page.reload();
    await page.locator('.status-bar').getByText('running').waitFor();
    // …and the proxy stops answering.
    const everything = '**/_airlock/**';
    await page.route(everything, (route) => route.abort('connectionrefused'));
    await page.evaluate(() => {
      window.location.hash = '#/spend';
    });
    const alert = page.getByRole('alert').filter({ hasText: 'The Spend screen could not be loaded' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Airlock is not reachable');
    // The rest of the window still works.
    await page.getByRole('link', { name: 'Live' }).click();
    await page.getByRole('search', { name: 'Filter requests' }).waitFor();
    await page.getByRole('link', { name: 'Spend' }).click();
    await alert.waitFor();
    await session.shot('50-proxy-away');

    await page.unroute(everything);
    await page.unroute(spendChunk);
    // Nobody clicks anything: the screen notices the proxy answers again and loads.
    await page.getByRole('heading', { name: 'Spend' }).waitFor();
    // Still signed in: the session survived.
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
  });
});

describe('client tokens', () => {
  it('shows a new token once with the setups filled in, marks the ones that cannot be shown again, and confirms before revoking', async () => {
    const orphan = await createClientToken(session.harness, 'no-keychain');
    // As when it was created without a keychain: the proxy knows it, the keychain does not hold it.
    await session.harness.secrets.delete(clientTokenAccount('no-keychain'));
    await page.goto(session.screenUrl('connect'));
    const card = page.getByTestId('snippet-openai-python');
    await card.getByRole('button', { name: 'Create token for this client' }).click();
    const notice = page.getByRole('region', { name: /Token openai-python created/ });
    await notice.waitFor();
    const token = (await notice.getByTestId('new-token-value').textContent()) ?? '';
    expect(token).toMatch(/^alk_/);
    expect(await card.locator('pre').first().textContent()).toContain(token);
    await notice.getByRole('button', { name: 'Copy token openai-python' }).click();
    await expect.poll(() => readClipboard(page)).toBe(token);

    const table = page.locator('section.tokens');
    await expect.poll(() => table.getByRole('row', { name: /no-keychain/ }).textContent()).toContain('no: shown once, at creation');
    expect(await table.getByRole('row', { name: /openai-python/ }).textContent()).toContain('yes, from the keychain');
    const option = page.getByLabel('Client token').locator('option', { hasText: 'no-keychain' });
    expect(await option.isDisabled()).toBe(true);
    expect(await option.textContent()).toContain('cannot be shown again');
    await session.shot('51-connect-new-token');

    await table.getByRole('button', { name: 'Revoke no-keychain…' }).click();
    const confirm = table.getByRole('alertdialog', { name: 'Revoke no-keychain?' });
    await confirm.waitFor();
    expect((await chatWith(orphan)).status).toBe(200);
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    expect(await table.getByRole('row', { name: /no-keychain/ }).count()).toBe(1);
    await table.getByRole('button', { name: 'Revoke no-keychain…' }).click();
    await confirm.getByRole('button', { name: 'Revoke no-keychain' }).click();
    await expect.poll(() => table.getByRole('row', { name: /no-keychain/ }).count()).toBe(0);
    expect((await chatWith(orphan)).status).toBe(401);
  });
});

describe('switching profile while agents run', () => {
  it('names the requests in flight and the models the new profile lacks before switching', async () => {
    await session.harness.api('/profiles', {
      method: 'POST',
      body: JSON.stringify({
        id: 'spare',
        name: 'Spare gateway',
        baseUrl: session.harness.simulator.baseUrl,
        // Everything qwen-* goes to an id this gateway does not list.
        modelRoutes: [{ pattern: 'qwen-*', target: 'qwen-retired' }],
      }),
    });
    await session.harness.api('/profiles/spare/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
    const token = await createClientToken(session.harness, 'agent');
    expect((await chatWith(token, { model: 'qwen-plus' })).status).toBe(200);
    await session.harness.log.flush();
    // A stream still running when the user switches.
    const running = chatWith(token, { model: 'gpt-4o-mini', stream: true });
    await expect.poll(async () => ((await (await session.harness.api('/status')).json()) as { inFlight: number }).inFlight).toBe(1);

    await page.goto(session.screenUrl('profiles'));
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /Spare gateway/ })
      .click();
    await page.getByRole('button', { name: 'Make active' }).click();
    const warning = page.getByRole('alertdialog', { name: 'Switch to Spare gateway now?' });
    await warning.waitFor();
    const text = (await warning.textContent()) ?? '';
    expect(text).toContain('1 request in flight');
    expect(text).toContain('qwen-plus (sent as qwen-retired)');
    expect(text).not.toContain('gpt-4o-mini');
    await session.shot('52-profile-switch-warning');
    // Nothing switched yet.
    expect(((await (await session.harness.api('/profiles')).json()) as { activeProfileId: string }).activeProfileId).toBe('main');
    await warning.getByRole('button', { name: 'Switch anyway' }).click();
    await expect
      .poll(async () => ((await (await session.harness.api('/profiles')).json()) as { activeProfileId: string }).activeProfileId)
      .toBe('spare');
    expect((await running).status).toBe(200);
    await session.harness.api('/profiles/main/activate', { method: 'POST' });
  });
});

describe('the pause alarm', () => {
  it('has its own Resume button in the status bar', async () => {
    await session.harness.api('/burst-limits', {
      method: 'PUT',
      body: JSON.stringify({ maxRequestsPerMinute: 1, maxCreditsPerMinute: 5 }),
    });
    const token = await createClientToken(session.harness, 'looping');
    expect((await chatWith(token)).status).toBe(200);
    expect((await chatWith(token)).status).toBe(403);
    const alarm = page.locator('.status-bar .alarm', { hasText: 'Client looping is paused' });
    await alarm.waitFor();
    await session.shot('53-pause-alarm');
    await session.harness.api('/burst-limits', {
      method: 'PUT',
      body: JSON.stringify({ maxRequestsPerMinute: 100, maxCreditsPerMinute: 5 }),
    });
    await alarm.getByRole('button', { name: 'Resume looping' }).click();
    await expect.poll(() => alarm.count()).toBe(0);
    expect((await chatWith(token)).status).toBe(200);
  });
});

describe('Connect by keyboard and at 900x600', () => {
  it('reaches every code block with Tab', async () => {
    await page.goto(session.screenUrl('connect'));
    const blocks = page.locator('.snippet pre');
    await blocks.first().waitFor();
    const names = await blocks.evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label')));
    expect(names.length).toBeGreaterThan(3);
    const reached = new Set<string>();
    // Bounded: every control on the page once, plus slack.
    const limit = (await page.locator('a, button, input, select, [tabindex="0"]').count()) + 10;
    for (let presses = 0; presses < limit && reached.size < names.length; presses += 1) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() =>
        document.activeElement?.tagName === 'PRE' ? document.activeElement.getAttribute('aria-label') : null,
      );
      if (focused) reached.add(focused);
    }
    expect([...reached].sort()).toEqual([...names].sort());
  });

  it('scrolls no screen sideways at 900x600 and has no axe violations, in light and dark', async () => {
    await page.setViewportSize({ width: 900, height: 600 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const screen of SCREENS) {
        await page.goto(session.screenUrl(screen));
        await page.locator('nav[aria-label="Screens"] a[aria-current="page"]').waitFor();
        await expect.poll(() => page.locator('.state-loading').count()).toBe(0);
        expect({ screen, scheme, overflow: await sidewaysOverflow(page) }).toEqual({ screen, scheme, overflow: [] });
        expect({ screen, scheme, violations: await axeViolations(page) }).toEqual({ screen, scheme, violations: [] });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1400, height: 900 });
  });
});
