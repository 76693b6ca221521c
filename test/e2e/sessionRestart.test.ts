import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/windowSession.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSIONS_FILE_NAME } from '../../proxy/app/control/sessionFile.ts';
import { DEFAULT_UI_DIR } from '../../proxy/app/control/staticUi.ts';
import { type Airlock, startAirlock } from '../../proxy/app/startAirlock.ts';
import { CONTROL_TOKEN_ACCOUNT } from '../../proxy/contracts/secretStore.ts';
import { CONTROL_TOKEN } from '../support/controlHarness.ts';
import { memorySecretStore } from '../support/memorySecretStore.ts';

/**
 * Issue 21, "keep the session": a browser signed in to the window stays signed in when
 * `airlock serve` restarts (same data directory, same keychain, same port), as a real Airlock.
 */
const secrets = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN });
let dataDir = '';
let userDataDir = '';
let airlock: Airlock | null = null;
let context: BrowserContext;
let page: Page;

const start = (port: number) =>
  startAirlock({ dataDir, port, env: {}, secrets, homeDir: path.join(dataDir, 'home'), uiDir: DEFAULT_UI_DIR });

/** What the reloaded window shows first: the signed-in status bar, or the sign-in page. */
async function signedInAfterReload(): Promise<boolean> {
  await page.reload();
  const signedIn = page.locator('.status-bar').getByText('Profile:');
  const signIn = page.getByRole('button', { name: 'Sign in' });
  await signedIn.or(signIn).first().waitFor();
  return (await signedIn.count()) > 0;
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-restart-'));
  userDataDir = mkdtempSync(path.join(tmpdir(), 'airlock-chromium-'));
  airlock = await start(0);
  context = await launchChromium(userDataDir);
  page = context.pages()[0] ?? (await context.newPage());
});

afterAll(async () => {
  await context?.close();
  await airlock?.stop();
  rmSync(userDataDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the window across a restart of Airlock', () => {
  it('stays signed in, and its session is kept hashed in a private file', async () => {
    if (!airlock) throw new Error('Airlock did not start');
    await page.goto(airlock.control.createLoginUrl());
    await page.locator('.status-bar').getByText('Profile:').waitFor();
    const port = airlock.proxy.port;

    await airlock.stop();
    airlock = null;
    airlock = await start(port);
    expect(await signedInAfterReload()).toBe(true);

    const [cookie] = await context.cookies();
    expect(cookie?.value).toBeTruthy();
    const sessionsPath = path.join(dataDir, SESSIONS_FILE_NAME);
    expect(readFileSync(sessionsPath, 'utf8')).not.toContain(cookie?.value);
    if (process.platform !== 'win32') expect(statSync(sessionsPath).mode & 0o777).toBe(0o600);

    // A cookie the file does not hold is still refused after the restart.
    await context.clearCookies();
    expect(await signedInAfterReload()).toBe(false);
  });
});
