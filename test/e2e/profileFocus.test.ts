import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, focusedName } from './support/pageChecks.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

/**
 * The Profiles screen used from the keyboard alone: each choice that removes the control it was
 * made on leaves focus on the screen (WAI-ARIA APG alert dialog: focus to the safe choice when it
 * opens, Escape closes it, closing gives focus back to what opened it or, that gone, to a heading).
 * Focus that fell to the page put a keyboard user back at the window's top, a screen reader silent.
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

async function press(key: string, expected: string): Promise<void> {
  await page.keyboard.press(key);
  await expect.poll(focused).toBe(expected);
}

describe('the Profiles screen from the keyboard', () => {
  it('keeps focus on the screen through removing, keeping, activating and adding a profile', async () => {
    for (const [id, name] of [
      ['spare', 'Spare gateway'],
      ['other', 'Other gateway'],
    ])
      await session.harness.json('/profiles', { method: 'POST', body: JSON.stringify({ id, name, baseUrl: 'http://127.0.0.1:1/v1' }) });
    await page.goto(session.screenUrl('profiles'));
    const list = page.getByRole('navigation', { name: 'Profiles' });
    await list.getByRole('button', { name: /^Spare gateway/ }).focus();
    await page.keyboard.press('Enter');
    const detail = page.locator('article.profile-detail');
    await detail.getByRole('heading', { name: 'Spare gateway' }).waitFor();

    // Remove… asks first, on its safe choice; Escape and Keep it give focus back to Remove….
    await detail.getByRole('button', { name: 'Remove…' }).focus();
    await press('Enter', 'Keep it');
    expect(await detail.getByRole('alertdialog', { name: 'Remove Spare gateway?' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await session.shot('95-profile-remove-question');
    await press('Escape', 'Remove…');
    await press('Enter', 'Keep it');
    await press('Enter', 'Remove…');

    // Test and Save run a request each: their buttons are busy meanwhile, not disabled, and keep focus.
    await detail.getByRole('button', { name: 'Test', exact: true }).focus();
    await page.keyboard.press('Enter');
    // Its profile has no key and no gateway: an error or a failed step, either way the test ended.
    await detail.locator('.profile-test').locator('[data-testid="test-result"], [role="alert"]').first().waitFor();
    expect(await focused()).toBe('Test');
    await detail.getByLabel('Name', { exact: true }).fill('Spare gateway, renamed');
    await detail.getByRole('button', { name: 'Save profile' }).focus();
    await page.keyboard.press('Enter');
    await detail.getByRole('heading', { name: 'Spare gateway, renamed' }).waitFor();
    expect(await focused()).toBe('Save profile');
    await detail.getByLabel('Name', { exact: true }).fill('Spare gateway');
    await page.keyboard.press('Tab');
    await detail.getByRole('button', { name: 'Save profile' }).focus();
    await page.keyboard.press('Enter');
    await detail.getByRole('heading', { name: 'Spare gateway', exact: true }).waitFor();

    // Make active: its button becomes a badge, so focus waits on the profile's heading.
    await detail.getByRole('button', { name: 'Make active' }).focus();
    await press('Enter', 'Spare gateway');
    await detail.locator('.badge', { hasText: 'active' }).waitFor();

    // Removing it for good: the profile is gone, focus is on the list's heading.
    await list.getByRole('button', { name: /^Other gateway/ }).focus();
    await page.keyboard.press('Enter');
    await detail.getByRole('heading', { name: 'Other gateway' }).waitFor();
    await detail.getByRole('button', { name: 'Remove…' }).focus();
    await press('Enter', 'Keep it');
    await press('Shift+Tab', 'Remove Other gateway and its key');
    await press('Enter', 'Profiles');
    await expect.poll(() => list.getByRole('button', { name: /^Other gateway/ }).count()).toBe(0);

    // A new profile, saved with Enter: focus goes to the profile it made, not to the page.
    await list.getByRole('button', { name: 'Add profile' }).focus();
    await page.keyboard.press('Enter');
    const form = page.locator('.profile-pane form');
    await form.getByLabel('Id', { exact: true }).fill('typed');
    await form.getByLabel('Name', { exact: true }).fill('Typed gateway');
    await form.getByLabel('Base URL', { exact: true }).fill('http://127.0.0.1:1/v1');
    await form.getByLabel('Name', { exact: true }).focus();
    await press('Enter', 'Typed gateway');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H2');
  });
});
