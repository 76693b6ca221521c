import type { Page } from 'playwright-core';
import { focusedName } from './support/pageChecks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SENTINEL_KEY } from '../support/sentinel.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

/**
 * Buttons pressed from the keyboard keep focus while their work runs and after it: Chromium sends
 * focus from a focused button that turns `disabled` to the page, and a keyboard user was back at the
 * window's top (BusyButton, SubmitButton). Each button here was disabled while busy, or once its
 * save emptied the field it sends.
 */
let session: WindowSession;
let page: Page;

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
});

afterAll(async () => {
  await session?.close();
});

const focused = () => focusedName(page);

describe('a button pressed with Enter', () => {
  it('keeps focus on Save key and Add key to pool, whose save empties their field', async () => {
    await page.goto(session.screenUrl('profiles'));
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /^Main gateway/ })
      .click();
    const detail = page.locator('article.profile-detail');
    const keyField = detail.locator('fieldset.key-field');
    await keyField.getByLabel('Replace key').fill(SENTINEL_KEY);
    await keyField.getByRole('button', { name: 'Save key' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => keyField.getByLabel('Replace key').inputValue()).toBe('');
    await expect.poll(focused).toBe('Save key');
    // Nothing to send now: marked so, still focused.
    expect(await keyField.getByRole('button', { name: 'Save key' }).getAttribute('aria-disabled')).toBe('true');

    const pool = detail.getByRole('group', { name: 'Key pool' });
    await pool.getByLabel('New key', { exact: true }).fill(`${SENTINEL_KEY}-second`);
    await pool.getByRole('button', { name: 'Add key to pool' }).focus();
    await page.keyboard.press('Enter');
    await pool.getByTestId('pool-keys').waitFor();
    await expect.poll(() => pool.getByLabel('New key', { exact: true }).inputValue()).toBe('');
    expect(await focused()).toBe('Add key to pool');
  });

  it('keeps focus on Save prices once the saved draft is dropped', async () => {
    const put = await session.harness.api('/profiles/main/prices', {
      method: 'PUT',
      body: JSON.stringify({ prices: [{ model: 'gpt-x', inputPer1M: 1 }] }),
    });
    expect(put.status).toBe(200);
    await page.goto('about:blank');
    await page.goto(session.screenUrl('profiles'));
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /^Main gateway/ })
      .click();
    await page.getByLabel('Input / 1M for gpt-x', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Save prices' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Prices saved.' }).waitFor();
    expect(await focused()).toBe('Save prices');
  });

  it('keeps focus on Save memory limits once the saved draft is dropped', async () => {
    await page.goto(session.screenUrl('connect'));
    const section = page.getByRole('region', { name: 'Memory' });
    await section.getByLabel(/Body kept per request/).fill('512');
    await section.getByRole('button', { name: 'Save memory limits' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => section.getByRole('status').textContent()).toContain('keeps each body up to 512 KiB');
    expect(await focused()).toBe('Save memory limits');
    // Nothing edited now: a press sends nothing. The next save, edited, is the first request after it.
    const saves: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT' && request.url().endsWith('/_airlock/api/settings/memory')) saves.push(request.postData() ?? '');
    });
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('Save memory limits');
    await section.getByLabel(/Body kept per request/).fill('256');
    await section.getByRole('button', { name: 'Save memory limits' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => section.getByRole('status').textContent()).toContain('keeps each body up to 256 KiB');
    expect(saves).toEqual(['{"bodyCaptureKiB":256}']);
  });

  it('keeps focus on a model’s Check while the check runs', async () => {
    await page.goto(session.screenUrl('models'));
    await page.getByRole('button', { name: 'Refresh from gateway' }).click();
    const check = page
      .locator('.model-table tr', { has: page.locator('code', { hasText: /^gpt-4o-mini$/ }) })
      .getByRole('button', { name: /^(Check|Checking…)$/ });
    await check.focus();
    // The check's first request to the gateway waits until the test has looked.
    const held = session.harness.simulator.holdNext('/chat/completions');
    await page.keyboard.press('Enter');
    await held.arrived;
    await expect.poll(() => check.textContent()).toBe('Checking…');
    expect(await focused()).toBe('Checking…');
    held.release();
    await expect.poll(() => check.textContent()).toBe('Check');
    expect(await focused()).toBe('Check');
  });
});
