import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_IDS } from '../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { findSentinel } from '../support/sentinel.ts';
import { createClientToken, openWindowSession, readClipboard, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let page: Page;

function chatWith(token: string, model = 'gpt-4o-mini') {
  return rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody({ model }),
  });
}

function modelRow(id: string) {
  return page.locator('.model-table tbody tr').filter({ has: page.locator('code', { hasText: new RegExp(`^${id}$`) }) });
}

function gatewayModelListings(): number {
  return session.harness.simulator.received.filter((request) => request.method === 'GET' && request.path === '/v1/models').length;
}

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
});

afterAll(async () => {
  await session?.close();
});

describe('the Models screen', () => {
  it("lists the gateway's ids with price and the user's figures; search, copy and refresh work", async () => {
    await session.harness.api('/profiles/main/prices', {
      method: 'PUT',
      body: JSON.stringify({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 4000, outputPer1M: 8000 }], priceMultiplier: 1 }),
    });
    const token = await createClientToken(session.harness, 'models-e2e');
    expect((await chatWith(token)).status).toBe(200);
    expect((await chatWith(token)).status).toBe(200);
    session.harness.simulator.script({ kind: 'status', status: 400, body: { error: { message: 'bad', type: 'invalid_request_error' } } });
    expect((await chatWith(token)).status).toBe(400);
    await session.harness.log.flush();

    await page.goto(session.screenUrl('models'));
    await modelRow('gpt-4o-mini').waitFor();
    const ids = await page.locator('.model-table tbody th code').allTextContents();
    expect(ids).toEqual([...DEFAULT_MODEL_IDS]);
    const cells = await modelRow('gpt-4o-mini').locator('td').allTextContents();
    expect(cells.slice(0, 3)).toEqual(['in 4000, out 8000', '3', '33%']);
    expect(await modelRow('qwen-plus').locator('td').first().textContent()).toBe('unpriced');
    await session.shot('30-models');

    await page.getByRole('searchbox', { name: 'Search' }).fill('qwen');
    await expect.poll(() => page.locator('.model-table tbody th code').allTextContents()).toEqual(['qwen-plus', 'qwen-vl-max']);
    await page.getByRole('button', { name: 'Copy qwen-vl-max' }).click();
    await expect.poll(() => readClipboard(page)).toBe('qwen-vl-max');
    await page.getByRole('searchbox', { name: 'Search' }).fill('');

    const listingsBefore = gatewayModelListings();
    const listedAt = page.getByText(/^Listed at /);
    const listedAtBefore = await listedAt.textContent();
    await page.waitForTimeout(1_100);
    await page.getByRole('button', { name: 'Refresh from gateway' }).click();
    await expect.poll(gatewayModelListings).toBe(listingsBefore + 1);
    await expect.poll(() => listedAt.textContent()).not.toBe(listedAtBefore);
  });

  it('runs the capability check from the screen and shows what the simulator supports', async () => {
    const row = modelRow('gpt-4o-mini');
    await row.getByRole('button', { name: 'Check' }).click();
    const badges = row.getByRole('list', { name: 'Capabilities' });
    await badges.waitFor({ timeout: 30_000 });
    expect(await badges.getByRole('listitem').allTextContents()).toEqual([
      'chat ✓',
      'stream ✓',
      'tools ✓',
      'image in ✓',
      '/messages ✗',
      '/responses ✗',
    ]);
    expect(await modelRow('qwen-plus').textContent()).toContain('not checked');
    await session.shot('31-models-capabilities');
    expect(findSentinel(await page.content())).toBeNull();
  });
});

describe('client tokens on Connect', () => {
  it('creates a token shown once and copyable, reveals it again, and revoke locks it out', async () => {
    await page.goto(session.screenUrl('connect'));
    const card = page.getByTestId('snippet-curl');
    await card.getByRole('button', { name: 'Create token for this client' }).click();
    const code = card.locator('pre');
    await expect.poll(() => code.textContent()).toMatch(/Bearer alk_/);
    const token = /Bearer (alk_[A-Za-z0-9_-]+)/.exec((await code.textContent()) ?? '')?.[1] ?? '';
    await card.getByRole('button', { name: 'Copy Shell for curl' }).click();
    await expect.poll(() => readClipboard(page)).toContain(`Bearer ${token}`);
    const tokensTable = page.locator('section.tokens');
    await expect.poll(() => tokensTable.getByRole('rowheader').allTextContents()).toContain('curl');
    await session.shot('32-connect-token-created');
    expect((await chatWith(token)).status).toBe(200);

    // Shown once: a fresh visit shows no token until the user asks the keychain for it.
    await page.reload();
    await card.waitFor();
    expect(await page.content()).not.toContain(token);
    await page.getByLabel('Client token').selectOption('curl');
    await expect.poll(() => code.textContent()).toContain(`Bearer ${token}`);
    await session.shot('33-connect-token-revealed');

    const curlRow = tokensTable.getByRole('row', { name: /curl/ });
    await curlRow.getByRole('button', { name: 'Revoke curl…' }).click();
    // The first click only asks; the token still works until the user confirms.
    expect((await chatWith(token)).status).toBe(200);
    await curlRow.getByRole('button', { name: 'Revoke curl', exact: true }).click();
    await expect.poll(() => tokensTable.getByRole('rowheader', { name: 'curl', exact: true }).count()).toBe(0);
    await expect.poll(() => page.content()).not.toContain(token);
    const refused = await chatWith(token);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body).error.type).toBe('client_unauthorized');
    await session.shot('34-connect-token-revoked');
  });
});

describe('the Revoke confirmation and the keyboard', () => {
  // WAI-ARIA APG alert dialog: focus goes to the least destructive choice when it opens, Escape
  // closes it, and closing gives focus back to what opened it (or, that gone, to a sensible place).
  const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent);

  it('takes focus to Keep it, gives it back to the Revoke button on Keep it or Escape, and to the list once revoked', async () => {
    await createClientToken(session.harness, 'keyboard');
    await page.goto(session.screenUrl('connect'));
    // The screen may be open already (a hash route): read its token list anew.
    await page.reload();
    const tokensTable = page.locator('section.tokens');
    const trigger = tokensTable.getByRole('button', { name: 'Revoke keyboard…' });
    await trigger.focus();

    await page.keyboard.press('Enter');
    const confirmation = tokensTable.getByRole('alertdialog', { name: 'Revoke keyboard?' });
    await confirmation.waitFor();
    expect(await confirmation.getAttribute('aria-describedby')).not.toBeNull();
    expect(await focusedName()).toBe('Keep it');
    await page.keyboard.press('Enter');
    await expect.poll(() => confirmation.count()).toBe(0);
    expect(await focusedName()).toBe('Revoke keyboard…');

    await page.keyboard.press('Enter');
    await confirmation.waitFor();
    expect(await focusedName()).toBe('Keep it');
    await page.keyboard.press('Escape');
    await expect.poll(() => confirmation.count()).toBe(0);
    expect(await focusedName()).toBe('Revoke keyboard…');

    await page.keyboard.press('Enter');
    await confirmation.waitFor();
    await page.keyboard.press('Shift+Tab');
    expect(await focusedName()).toBe('Revoke keyboard');
    await page.keyboard.press('Enter');
    await expect.poll(() => tokensTable.getByRole('rowheader', { name: 'keyboard', exact: true }).count()).toBe(0);
    // The row and its button are gone: focus is on the token list's heading, not lost to the page.
    await expect.poll(focusedName).toBe('Client tokens');
  });
});

describe('burst limits on Connect', () => {
  it('shows the limits, refuses a bad one with its reason, saves a good one the proxy applies, and a paused client resumes', async () => {
    await page.goto(session.screenUrl('connect'));
    const section = page.getByRole('region', { name: 'Burst guard' });
    await expect.poll(() => section.textContent()).toContain('paused past 120 requests or 5 credits within a minute');
    const requests = section.getByLabel('Requests per minute');

    await requests.fill('0');
    await section.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => section.getByRole('alert').textContent()).toBe('maxRequestsPerMinute: must be above 0');

    await requests.fill('1');
    await section.getByRole('button', { name: 'Save limits' }).click();
    await expect
      .poll(() => section.getByRole('status').textContent())
      .toBe('Saved. A client is paused past 1 request or 5 credits within a minute.');
    expect(await (await session.harness.api('/burst-limits')).json()).toEqual({ maxRequestsPerMinute: 1, maxCreditsPerMinute: 5 });

    const token = await createClientToken(session.harness, 'runaway');
    expect((await chatWith(token)).status).toBe(200);
    expect((await chatWith(token)).status).toBe(403);
    await page.reload();
    const row = page.locator('section.tokens').getByRole('row', { name: /runaway/ });
    await expect.poll(() => row.textContent()).toContain('paused by the burst guard');
    await section.scrollIntoViewIfNeeded();
    await session.shot('35-connect-burst-guard');

    await requests.fill('100');
    await section.getByRole('button', { name: 'Save limits' }).click();
    await section.getByRole('status').waitFor();
    await row.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => row.textContent()).not.toContain('paused');
    expect((await chatWith(token)).status).toBe(200);
    expect(findSentinel(await page.content())).toBeNull();
  });
});
