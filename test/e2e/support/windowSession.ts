import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { DEFAULT_UI_DIR } from '../../../proxy/app/control/staticUi.ts';
import type { SimulatorOptions } from '../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const SCREENSHOT_DIR = path.join(repoRoot, 'test-results', 'e2e');

export interface WindowSession {
  harness: ControlHarness;
  context: BrowserContext;
  page: Page;
  /** `http://127.0.0.1:PORT/_airlock/#/<screen>` */
  screenUrl(screen: string): string;
  /** Saves a screenshot of the viewport as test-results/e2e/<name>.png. */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Debian's headless Chromium with the flags this machine and CI need, its profile in `userDataDir`, at the window's usual size. */
export function launchChromium(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: 1400, height: 900 },
  });
}

async function expectOk(response: Response): Promise<Response> {
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return response;
}

/**
 * A proxy + simulator (the control harness) and a headless Chromium signed in to its window, with
 * an active profile "main" whose key is the sentinel. The clipboard is readable from the page.
 */
export async function openWindowSession(options: { simulator?: SimulatorOptions } = {}): Promise<WindowSession> {
  if (!existsSync(path.join(DEFAULT_UI_DIR, 'index.html')))
    throw new Error('Build the window first: npm run build:renderer (npm run test:e2e does it).');
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const harness = await startControlHarness({ uiDir: DEFAULT_UI_DIR, ...(options.simulator ? { simulator: options.simulator } : {}) });
  await expectOk(
    await harness.api('/profiles', {
      method: 'POST',
      body: JSON.stringify({ id: 'main', name: 'Main gateway', baseUrl: harness.simulator.baseUrl }),
    }),
  );
  await expectOk(await harness.api('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) }));
  await expectOk(await harness.api('/profiles/main/activate', { method: 'POST' }));

  const userDataDir = mkdtempSync(path.join(tmpdir(), 'airlock-chromium-'));
  const context = await launchChromium(userDataDir);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.proxy.url });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(harness.control.createLoginUrl());
  await page.locator('.status-bar').getByText('Profile:').waitFor();

  return {
    harness,
    context,
    page,
    screenUrl: (screen) => `${harness.proxy.url}/_airlock/#/${screen}`,
    shot: async (name) => {
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
    },
    async close() {
      await context.close();
      await harness.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Creates a client token through the control API and returns its secret. */
export async function createClientToken(harness: ControlHarness, name: string): Promise<string> {
  const response = await expectOk(await harness.api('/tokens', { method: 'POST', body: JSON.stringify({ name }) }));
  return ((await response.json()) as TokenSecretResponse).token;
}

/** What the page's clipboard holds (needs the clipboard permissions the session grants). */
export function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}
