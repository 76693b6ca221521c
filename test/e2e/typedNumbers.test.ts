import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../proxy/contracts/profileViews.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

/**
 * Numbers as users type them into the profile form. A number input drops what it does not take as it is typed or
 * pasted, so a decimal comma vanished: a daily cap typed 1,5 was saved as 15 (probe F, 2026-11-29).
 */
let session: WindowSession;
let page: Page;

async function savedBudget(): Promise<ProfileView['profile']['budget'] | undefined> {
  const view = (await (await session.harness.api('/profiles')).json()) as { profiles: ProfileView[] };
  return view.profiles.find((candidate) => candidate.profile.id === 'main')?.profile.budget;
}

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
});

afterAll(async () => {
  await session?.close();
});

describe('a budget typed into the profile form', () => {
  it('with a decimal comma is refused by name, and no cap is saved', async () => {
    await page.goto(session.screenUrl('profiles'));
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /Main gateway/ })
      .click();
    const dailyCap = page.getByLabel('Daily cap');
    await dailyCap.click();
    await page.keyboard.type('1,5');
    expect(await dailyCap.inputValue()).toBe('1,5');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText("'1,5' has a comma: write the number with a decimal point").waitFor();
    expect(await savedBudget()).toEqual({});
  });

  it('with a decimal point is saved as typed', async () => {
    await page.getByLabel('Daily cap').fill('1.5');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(savedBudget).toEqual({ dailyCredits: 1.5 });
  });
});

describe('a price typed into the price table', () => {
  it('with a decimal comma is refused by name and Save waits, then a decimal point is saved', async () => {
    const put = await session.harness.api('/profiles/main/prices', {
      method: 'PUT',
      body: JSON.stringify({ prices: [{ model: 'gpt-x', inputPer1M: 1 }] }),
    });
    expect(put.status).toBe(200);
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /Main gateway/ })
      .click();
    const cell = page.getByLabel('Input / 1M for gpt-x', { exact: true });
    await cell.fill('');
    await cell.click();
    await page.keyboard.type('0,5');
    expect(await cell.inputValue()).toBe('0,5');
    await page.getByRole('alert').getByText("'0,5' has a comma").waitFor();
    expect(await page.getByRole('button', { name: 'Save prices' }).isDisabled()).toBe(true);

    await cell.fill('0.5');
    await page.getByRole('button', { name: 'Save prices' }).click();
    await expect
      .poll(async () => ((await (await session.harness.api('/profiles/main/prices')).json()) as { prices: unknown[] }).prices)
      .toEqual([{ model: 'gpt-x', inputPer1M: 0.5 }]);
  });
});

describe('a refused price that leaves the table', () => {
  async function openPrices(prices: { model: string; inputPer1M: number }[]): Promise<void> {
    const put = await session.harness.api('/profiles/main/prices', { method: 'PUT', body: JSON.stringify({ prices }) });
    expect(put.status).toBe(200);
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /Main gateway/ })
      .click();
  }

  it('with its row removed no longer holds Save back nor shows its refusal', async () => {
    await openPrices([
      { model: 'gpt-x', inputPer1M: 1 },
      { model: 'gpt-y', inputPer1M: 2 },
    ]);
    await page.getByLabel('Input / 1M for gpt-y', { exact: true }).fill('0,5');
    await page.getByRole('alert').getByText("'0,5' has a comma").waitFor();
    await page.getByRole('row', { name: /gpt-y/ }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('alert').getByText("'0,5' has a comma").waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Save prices' }).isDisabled()).toBe(false);
  });

  it('replaced by an import no longer holds Save back nor shows its refusal', async () => {
    await openPrices([{ model: 'gpt-x', inputPer1M: 1 }]);
    await page.getByLabel('Input / 1M for gpt-x', { exact: true }).fill('0,5');
    await page.getByRole('alert').getByText("'0,5' has a comma").waitFor();
    await page.getByText('Import / export').click();
    await page.getByLabel('Price file contents').fill('model,inputPer1M\ngpt-x,3\ngpt-z,4\n');
    await page.getByRole('button', { name: 'Import (replaces the table)' }).click();
    await page.getByText('Imported: this replaced the table.').waitFor();
    expect(await page.getByLabel('Input / 1M for gpt-x', { exact: true }).inputValue()).toBe('3');
    await page.getByLabel('Input / 1M for gpt-z', { exact: true }).fill('5');
    await page.getByRole('alert').getByText("'0,5' has a comma").waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Save prices' }).isDisabled()).toBe(false);
  });
});

/**
 * The Connect screen's burst and memory limits and the Spend screen's top-up were still number inputs: a decimal
 * comma typed into one vanished as it was typed, so 1,5 credits a minute were saved as 15 (probe A, 2026-11-29).
 */
describe('a limit typed into the Connect screen', () => {
  it.each([
    { region: 'Burst guard', label: 'Credits per minute', save: 'Save limits', settings: '/burst-limits', field: 'maxCreditsPerMinute' },
    { region: 'Memory', label: /Log backlog/, save: 'Save memory limits', settings: '/settings/memory', field: 'logBacklogMiB' },
  ])('$region: with a decimal comma is refused by name, and nothing is saved', async ({ region, label, save, settings, field }) => {
    const before = await (await session.harness.api(settings)).json();
    await page.goto(session.screenUrl('connect'));
    const section = page.getByRole('region', { name: region });
    const input = section.getByLabel(label);
    await input.fill('');
    await input.click();
    await page.keyboard.type('1,5');
    expect(await input.inputValue()).toBe('1,5');
    await section.getByRole('button', { name: save }).click();
    await expect.poll(() => section.getByRole('alert').textContent()).toContain(`${field}: '1,5' has a comma`);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(await (await session.harness.api(settings)).json()).toEqual(before);
  });

  it('Burst guard: with a decimal point is saved as typed', async () => {
    await page.goto(session.screenUrl('connect'));
    const section = page.getByRole('region', { name: 'Burst guard' });
    await section.getByLabel('Credits per minute').fill('1.5');
    await section.getByRole('button', { name: 'Save limits' }).click();
    await expect
      .poll(
        async () => ((await (await session.harness.api('/burst-limits')).json()) as { maxCreditsPerMinute: number }).maxCreditsPerMinute,
      )
      .toBe(1.5);
  });
});

describe('credits typed into the top-up estimate', () => {
  it('with a decimal comma are refused by name, not quoted as another amount', async () => {
    await page.goto(session.screenUrl('spend'));
    const section = page.locator('section.top-up');
    const credits = section.getByLabel('Credits to buy');
    await credits.fill('');
    await credits.click();
    await page.keyboard.type('0,5');
    expect(await credits.inputValue()).toBe('0,5');
    await section.getByText("'0,5' has a comma").waitFor();
    expect(await section.getByText('Discount').count()).toBe(0);
  });
});
