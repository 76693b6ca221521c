import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { axeViolations, sidewaysOverflow } from './support/pageChecks.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let page: Page;

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
});

afterAll(async () => {
  await session?.close();
});

describe('screens with the settings added lately', () => {
  it('the price editor with a per-audio-minute price: labelled, and inside the window', async () => {
    await session.harness.api('/profiles/main/prices', {
      method: 'PUT',
      body: JSON.stringify({
        prices: [
          { model: 'whisper-1', perAudioMinute: 0.006 },
          { model: 'gpt-4o-mini', inputPer1M: 0.15, outputPer1M: 0.6 },
        ],
      }),
    });
    await page.goto(session.screenUrl('profiles'));
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /Main gateway/ })
      .click();
    const audio = page.getByLabel('Per audio minute for whisper-1');
    expect(await audio.inputValue()).toBe('0.006');
    // The table's title names every unit its columns use.
    expect(
      await page.getByRole('group', { name: /per 1M tokens or characters, per call, per audio minute or per video second/ }).count(),
    ).toBe(1);
    await audio.fill('0.01');
    await page.getByRole('button', { name: 'Save prices' }).click();
    await page.getByText('Prices saved.').waitFor();
    expect(await page.getByLabel('Per audio minute for whisper-1').inputValue()).toBe('0.01');
    expect(await axeViolations(page)).toEqual([]);
    expect(await sidewaysOverflow(page)).toEqual([]);
    // Every kind of price and the Remove buttons in view at the window's usual size: the table scrolls only in a narrower one.
    expect(await page.locator('.price-table-scroll').evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(1);
    expect(findSentinel(await page.content())).toBeNull();
    await session.shot('92-prices-audio');
  });

  it('the Connect screen with a Continue config holding a gateway key', async () => {
    const configPath = path.join(session.harness.homeDir, '.continue', 'config.yaml');
    mkdirSync(path.dirname(configPath), { recursive: true });
    writeFileSync(
      configPath,
      `name: Local Config\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: My gateway\n    provider: openai\n    model: gpt-4o-mini\n    apiBase: ${session.harness.simulator.baseUrl}\n    apiKey: ${SENTINEL_KEY}\n`,
    );
    await page.goto(session.screenUrl('connect'));
    const card = page.getByTestId('connect-continue');
    await card.getByText('found, not connected').waitFor();
    // The import checkbox sits at the start of its sentence, as a checkbox does, not alone on a line above it.
    const onOneLine = await card.getByRole('checkbox').evaluate((box) => {
      const words = [...(box.parentElement?.childNodes ?? [])].find((node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim());
      if (!words) return false;
      const range = document.createRange();
      range.selectNodeContents(words);
      const firstLine = range.getClientRects()[0];
      const square = box.getBoundingClientRect();
      return (
        firstLine !== undefined && square.top < firstLine.bottom && square.bottom > firstLine.top && square.right <= firstLine.left + 1
      );
    });
    expect(onOneLine).toBe(true);
    await card.getByRole('button', { name: 'Preview changes for Continue' }).click();
    await card.locator('pre').waitFor();
    expect(findSentinel(await page.content())).toBeNull();
    await card.getByRole('button', { name: 'Apply to Continue' }).click();
    await card.getByText(/connected with client token/).waitFor();
    await card.getByRole('button', { name: 'Delete backups of Continue…' }).waitFor();
    expect(findSentinel(await page.content())).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    expect(await sidewaysOverflow(page)).toEqual([]);
    await session.shot('93-connect-continue');
  });
});
