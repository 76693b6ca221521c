import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/windowSession.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_UI_DIR } from '../../proxy/app/control/staticUi.ts';
import { startControlHarness, type ControlHarness } from '../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { lowContrastText } from './support/pageChecks.ts';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const screenshotDir = path.join(repoRoot, 'test-results', 'e2e');
/** Inside the repository so `import 'openai'` in the pasted snippet resolves to our node_modules. */
const scriptDir = path.join(repoRoot, '.airlock-tmp', 'e2e-snippet');

let harness: ControlHarness;
let context: BrowserContext;
let page: Page;
let userDataDir: string;
let clientToken = '';

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: false });
}

async function send(body: Record<string, unknown>): Promise<void> {
  await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(body),
  });
}

beforeAll(async () => {
  if (!existsSync(path.join(DEFAULT_UI_DIR, 'index.html')))
    throw new Error('Build the window first: npm run build:renderer (npm run test:e2e does it).');
  mkdirSync(screenshotDir, { recursive: true });
  mkdirSync(scriptDir, { recursive: true });
  // Slow chunks so a stream is visibly in flight while the page watches it.
  harness = await startControlHarness({ uiDir: DEFAULT_UI_DIR, simulator: { streamChunkCount: 30, streamChunkIntervalMs: 120 } });
  userDataDir = mkdtempSync(path.join(tmpdir(), 'airlock-chromium-'));
  context = await launchChromium(userDataDir);
  page = context.pages()[0] ?? (await context.newPage());
});

afterAll(async () => {
  await context?.close();
  await harness?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  rmSync(scriptDir, { recursive: true, force: true });
});

describe('the window in Chromium against a real proxy and the simulator', () => {
  it('signs in from the printed link and removes the code from the address', async () => {
    await page.goto(harness.control.createLoginUrl());
    await page.getByRole('heading', { name: 'Three steps to your first request' }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/live');
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await shot('01-first-run');
  });

  it('adds a profile, sets its key (never shown back), tests it and makes it active', async () => {
    await harness.api('/profiles', {
      method: 'POST',
      body: JSON.stringify({ id: 'spare', name: 'Spare', baseUrl: harness.simulator.baseUrl }),
    });
    await page.goto(`${harness.proxy.url}/_airlock/#/profiles`);
    await page.getByRole('button', { name: 'Add profile' }).click();
    await page.getByLabel('Id', { exact: true }).fill('main');
    await page.getByLabel('Name', { exact: true }).fill('Main gateway');
    await page.getByLabel('Base URL').fill(`${harness.simulator.url}/v1/chat/completions`);
    await expect.poll(() => page.getByTestId('normalized-base-url').textContent()).toBe(`${harness.simulator.url}/v1`);
    await shot('02-profile-form');
    await page.getByRole('button', { name: 'Add profile' }).last().click();

    await page.getByRole('heading', { name: 'Main gateway' }).waitFor();
    await page.getByLabel('Key', { exact: true }).fill(SENTINEL_KEY);
    await page.getByRole('button', { name: 'Save key' }).click();
    await expect.poll(() => page.getByTestId('key-status').textContent()).toBe(`Set, ends in …${SENTINEL_KEY.slice(-4)}`);
    expect(await page.getByLabel('Replace key').inputValue()).toBe('');

    await page.getByLabel('Model for the chat (optional)').fill('gpt-4o-mini');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const result = page.getByTestId('test-result');
    await expect.poll(() => result.textContent()).toContain('One-token chat: passed');
    expect(await result.textContent()).toContain('GET /models: passed');

    await page.getByRole('button', { name: 'Make active' }).click();
    await expect.poll(() => page.locator('.status-bar').textContent()).toContain('Profile: Main gateway');
    await shot('03-profile-tested-active');
    expect(findSentinel(await page.content())).toBeNull();
  });

  it("runs the Connect page's OpenAI SDK snippet as a real script", async () => {
    await page.goto(`${harness.proxy.url}/_airlock/#/connect`);
    const card = page.getByTestId('snippet-openai-node');
    await card.getByRole('button', { name: 'Create token for this client' }).click();
    await expect.poll(() => card.locator('pre').textContent()).toMatch(/apiKey: "alk_[A-Za-z0-9_-]+"/);
    const code = (await card.locator('pre').textContent()) ?? '';
    clientToken = /apiKey: "(alk_[^"]+)"/.exec(code)?.[1] ?? '';
    await shot('04-connect');

    const scriptPath = path.join(scriptDir, 'hello.mjs');
    writeFileSync(scriptPath, code);
    const { stdout } = await run(process.execPath, [scriptPath], { timeout: 30_000 });
    expect(stdout.trim().length).toBeGreaterThan(0);
  });

  it('shows a streamed request appear and its text grow live', async () => {
    await page.goto(`${harness.proxy.url}/_airlock/#/live`);
    await page.getByRole('listbox', { name: 'Requests, newest first' }).waitFor();
    const streaming = send({ stream: true, messages: [{ role: 'user', content: 'stream please' }] });
    const row = page.locator('.request-row.in-flight').first();
    await row.waitFor();
    await row.click();
    const liveText = page.getByTestId('live-text');
    await expect
      .poll(async () => ((await liveText.textContent()) ?? '').replace('(waiting for the first token)', '').length)
      .toBeGreaterThan(0);
    const early = (await liveText.textContent()) ?? '';
    // While it streams, the request itself is already there: headers, body and the conversation so far.
    const detail = page.getByRole('region', { name: 'Request detail' });
    await expect
      .poll(() => detail.locator('details.headers summary').first().textContent())
      .toMatch(/Request headers \(masked\) \([1-9]\d*\)/);
    expect(await detail.getByText('Request body: none recorded.').count()).toBe(0);
    expect(await detail.getByRole('region', { name: 'Conversation' }).textContent()).toContain('stream please');
    await shot('05-live-streaming');
    await expect.poll(async () => ((await liveText.textContent()) ?? '').length).toBeGreaterThan(early.length);
    const later = (await liveText.textContent()) ?? '';
    expect(later.startsWith(early.replace('(waiting for the first token)', ''))).toBe(true);
    await streaming;
    await page.getByRole('heading', { name: 'Stream text' }).waitFor();
    await shot('06-live-done');
  });

  it('shows a failed request with its class, meaning and fix', async () => {
    await send({ model: 'gpt-4o-typo' });
    await page.getByRole('searchbox', { name: 'Search' }).fill('gpt-4o-typo');
    const failed = page.locator('.request-row.failed').first();
    await failed.waitFor();
    await failed.click();
    const explanation = page.locator('.error-explanation');
    await explanation.waitFor();
    expect(await explanation.textContent()).toContain('model_not_found');
    expect(await explanation.textContent()).toMatch(/How to fix it.*copy the exact id/i);
    await shot('07-failed-request');
  });

  it('shows spend after priced requests', async () => {
    await harness.api('/profiles/main/prices', {
      method: 'PUT',
      body: JSON.stringify({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 4000, outputPer1M: 8000 }], priceMultiplier: 1 }),
    });
    await send({});
    await send({});
    await harness.log.flush();
    await page.goto(`${harness.proxy.url}/_airlock/#/spend`);
    const today = page.locator('.card.total').first();
    await expect.poll(() => today.textContent()).toMatch(/[1-9][\d.]* credits/);
    expect(await page.getByRole('table').first().textContent()).toContain('gpt-4o-mini');
    // Opens on Today, charted by the hour; the other ranges chart days.
    expect(await page.getByRole('group', { name: 'Range' }).getByRole('button', { name: 'Today' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.getByRole('figure', { name: 'Credits per hour today, by model' }).locator('svg').first().waitFor();
    const ticks = page.locator('.spend-chart .recharts-xAxis-tick-labels text');
    await ticks.first().waitFor();
    const hourTicks = await ticks.allTextContents();
    expect(hourTicks.every((tick) => /^\d\d:00$/.test(tick))).toBe(true);
    expect(hourTicks.length).toBeGreaterThan(0);
    // Each model is a series named for it, with a bar for the hour it spent in.
    expect(await page.locator('.spend-chart .recharts-legend-item-text').allTextContents()).toContain('gpt-4o-mini');
    expect(await page.locator('.spend-chart .recharts-bar-rectangle path').count()).toBeGreaterThan(0);
    // A model without a price links to where prices are set.
    expect(await page.getByRole('link', { name: 'set prices' }).first().getAttribute('href')).toBe('#/profiles');
    await shot('08-spend');
    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByRole('figure', { name: 'Credits per day by model' }).locator('svg').first().waitFor();
  });

  it("draws the Spend chart's axis and legend text with AA contrast, in light and dark", async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${harness.proxy.url}/_airlock/#/spend`);
      await page.locator('.spend-chart .recharts-yAxis-tick-labels text').first().waitFor();
      await page.locator('.spend-chart .recharts-legend-item-text').first().waitFor();
      expect({ scheme, low: await lowContrastText(page, '.spend-chart') }).toEqual({ scheme, low: [] });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('follows a dark OS theme', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${harness.proxy.url}/_airlock/#/live`);
    await page.getByRole('listbox').waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(background).toBe('rgb(22, 24, 28)');
    await shot('09-dark-live');
    expect(findSentinel(await page.content())).toBeNull();
  });
});
