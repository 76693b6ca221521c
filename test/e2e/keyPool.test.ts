import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { findSentinel, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../support/sentinel.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/**
 * Issue 22, key pools in the window: a second key added on the Profiles screen (typed once, never
 * shown back), keys renamed and removed, a key the gateway rate-limited shown as left out, and the
 * request detail naming the keys a request went out with.
 */
let session: WindowSession;
let page: Page;
let token = '';

const pool = () => page.getByRole('group', { name: 'Key pool' });
const noSentinel = async () => {
  const html = await page.content();
  expect([findSentinel(html), findSentinel(html, SECOND_SENTINEL_KEY)]).toEqual([null, null]);
};

beforeAll(async () => {
  // The gateway limits each key on its own; the profile's first key has no requests left.
  session = await openWindowSession({
    simulator: { validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY], keyRequestLimits: { [SENTINEL_KEY]: 0 }, keyRetryAfterS: 600 },
  });
  page = session.page;
  token = await createClientToken(session.harness, 'pool-e2e');
});

afterAll(async () => {
  await session?.close();
});

describe('the key pool on the Profiles screen', () => {
  it('adds a key, renames one, shows a rate-limited key left out, and names the keys in the request detail', async () => {
    await page.goto(session.screenUrl('profiles'));
    await page.getByRole('button', { name: /Main gateway/ }).click();
    await pool().getByLabel('New key label').fill('team B');
    await pool().getByLabel('New key', { exact: true }).fill(SECOND_SENTINEL_KEY);
    await pool().getByRole('button', { name: 'Add key to pool' }).click();

    const rows = pool().locator('li.pool-key');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain(`key 1 main ends in …${SENTINEL_KEY.slice(-4)} — ready`);
    expect(await rows.nth(1).textContent()).toContain(`team B`);
    expect(await rows.nth(1).textContent()).toContain(`ends in …${SECOND_SENTINEL_KEY.slice(-4)}`);
    expect(await pool().getByLabel('New key', { exact: true }).inputValue()).toBe('');
    await noSentinel();

    await rows.nth(0).getByLabel('Label').fill('team A');
    await rows.nth(0).getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => rows.nth(0).locator('strong').textContent()).toBe('team A');

    // The first key is rate limited: the request moves on to team B's key and is answered.
    const response = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(response.status).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: /Main gateway/ }).click();
    await expect
      .poll(() => page.getByTestId('pool-key-main').getByTestId('pool-key-state').textContent())
      .toContain('rate limited by the gateway: left out until');
    expect(await rows.nth(1).getByTestId('pool-key-state').textContent()).toBe('ready');
    await session.shot('70-key-pool');

    await session.harness.log.flush();
    await page.goto(session.screenUrl('live'));
    await page.locator('.request-row', { hasText: 'gpt-4o-mini' }).first().click();
    const keys = page.getByRole('region', { name: 'Request detail' }).getByTestId('gateway-keys');
    await expect.poll(() => keys.textContent()).toMatch(/^team A \(main\) → team B \([0-9a-f]{6}\)/);
    await session.shot('71-detail-gateway-keys');
    await noSentinel();

    await page.goto(session.screenUrl('profiles'));
    await page.getByRole('button', { name: /Main gateway/ }).click();
    await rows.nth(1).getByRole('button', { name: 'Remove from pool' }).click();
    // It asks first, on its safe choice: the key cannot be shown back.
    const question = rows.nth(1).getByRole('alertdialog', { name: /^Remove .* from the pool\?$/ });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep it');
    await question.getByRole('button', { name: /^Remove / }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Key pool');
    await noSentinel();
  });
});
