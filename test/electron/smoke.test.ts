import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, type ElectronApplication } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAME, emptyConfig } from '../../proxy/contracts/config.ts';
import { addProfile } from '../../proxy/app/profiles/configMutations.ts';
import { serializeConfig } from '../../proxy/app/profiles/configParse.ts';
import { electronBinaryPath } from '../../electron/logic/launchPlan.ts';
import { EXPOSE_GC_SWITCH } from '../../electron/logic/memoryLaunch.ts';
import { GLIBC_MALLOC_ENV } from '../../proxy/app/cli/glibcMalloc.ts';
import type { MenuItemModel } from '../../electron/logic/trayMenu.ts';

/**
 * Launches the built desktop app (dist-electron/, renderer/dist/) with a fresh data directory and
 * two profiles, then checks the window shows the Live screen and that the tray's profile radio
 * switches the active profile. The tray is driven through test hooks the main process installs
 * only when AIRLOCK_TEST_HOOKS=1 (Electron has no API to read a tray's menu back).
 */
interface TestHooks {
  trayMenu(): MenuItemModel[];
  clickTrayItem(id: string): Promise<void>;
  activeProfileId(): string | null;
}

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
let dataDir = '';
let desktopApp: ElectronApplication;

function writeProfiles(directory: string): void {
  let config = addProfile(emptyConfig(), { id: 'main', name: 'Main gateway', baseUrl: 'http://127.0.0.1:9/v1' });
  config = addProfile(config, { id: 'backup', name: 'Backup gateway', baseUrl: 'http://127.0.0.1:9/v1' });
  writeFileSync(join(directory, CONFIG_FILE_NAME), serializeConfig({ ...config, activeProfileId: 'main' }));
}

/** Runs in the Electron main process (Playwright serialises the function; it cannot close over anything). */
const trayMenu = (app: ElectronApplication) =>
  app.evaluate(() => (globalThis as unknown as { airlockTestHooks: TestHooks }).airlockTestHooks.trayMenu());
const activeProfileId = (app: ElectronApplication) =>
  app.evaluate(() => (globalThis as unknown as { airlockTestHooks: TestHooks }).airlockTestHooks.activeProfileId());
const clickTrayItem = (app: ElectronApplication, id: string) =>
  app.evaluate(
    (_electron, itemId) => (globalThis as unknown as { airlockTestHooks: TestHooks }).airlockTestHooks.clickTrayItem(itemId),
    id,
  );

/** The binary path without requiring the electron package (which would try to download it). */
function resolveElectronBinary(): string {
  const packageDir = join(projectRoot, 'node_modules', 'electron');
  const pathTxt = join(packageDir, 'path.txt');
  const binary = electronBinaryPath(
    existsSync(pathTxt) ? readFileSync(pathTxt, 'utf8') : null,
    packageDir,
    process.env.ELECTRON_OVERRIDE_DIST_PATH,
  );
  if (binary === null || !existsSync(binary))
    throw new Error('The Electron binary is not downloaded yet: run `npx install-electron` (or `npm start` once), then this test.');
  return binary;
}

beforeAll(async () => {
  const executablePath = resolveElectronBinary();
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-electron-'));
  writeProfiles(dataDir);
  desktopApp = await electron.launch({
    executablePath,
    // Started as `npm start` starts it, so it does not relaunch itself (which would end the process Playwright drives).
    args: [EXPOSE_GC_SWITCH, '.'],
    cwd: projectRoot,
    env: { ...process.env, AIRLOCK_DATA_DIR: dataDir, AIRLOCK_PORT: '0', AIRLOCK_TEST_HOOKS: '1', ...GLIBC_MALLOC_ENV },
  });
});

afterAll(async () => {
  await desktopApp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('desktop app', () => {
  it('opens the window on the Live screen of its own proxy', async () => {
    const window = await desktopApp.firstWindow();
    const currentScreen = window.locator('nav[aria-label="Screens"] a[aria-current="page"]');
    await currentScreen.waitFor({ timeout: 30_000 });
    expect(await currentScreen.textContent()).toBe('Live');
    expect(new URL(window.url()).pathname.startsWith('/_airlock/')).toBe(true);
  });

  it('switches the active profile from the tray radio list', async () => {
    const radios = (await trayMenu(desktopApp)).filter((item) => item.type === 'radio');
    expect(radios.map((item) => item.id)).toEqual(['profile:main', 'profile:backup']);
    await clickTrayItem(desktopApp, 'profile:backup');
    await expect.poll(() => activeProfileId(desktopApp), { timeout: 10_000 }).toBe('backup');
    const checked = (await trayMenu(desktopApp)).find((item) => item.type === 'radio' && item.checked);
    expect(checked?.id).toBe('profile:backup');
  });
});
