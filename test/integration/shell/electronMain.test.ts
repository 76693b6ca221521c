import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONFIG_FILE_NAME, emptyConfig } from '../../../proxy/contracts/config.ts';
import { addClientToken, addProfile, setActiveProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { serializeConfig } from '../../../proxy/app/profiles/configParse.ts';
import { clientTokenAccount, gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { secretStoreForDataDir } from '../../../proxy/app/secrets/dataDirSecrets.ts';
import { keytarCalls } from '../../../proxy/app/secrets/keytarStore.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { app, recorder, type MenuTemplateItem } from '../../support/electronStandIn.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { RELAUNCHED_ENV } from '../../../electron/logic/memoryLaunch.ts';
import { KEYCHAIN_DIR_ENV } from '../../support/fileKeytar.ts';

const STAND_IN_HOOKS = new URL('../../support/standInHooks.ts', import.meta.url).href;

/**
 * The real electron/main.ts (startup, tray, profile switch, notifications, quit) against a
 * recording stand-in for Electron's API and a keychain in files, read by the app's keychain helper
 * in a utility process (a child process here), with its proxy in-process as the desktop app runs it. `npm run test:electron` runs the built app in the real binary instead.
 */
vi.mock('electron', async () => (await import('../../support/electronStandIn.ts')).electronModule);
// The keychain the app's helper (a child process) reads too: standInHooks.ts gives it the same one.
vi.mock('keytar', () => import('../../support/fileKeytar.ts'));

let dataDir = '';
const keychainDir = mkdtempSync(join(tmpdir(), 'airlock-shell-keychain-'));
let gateway: GatewaySimulator;
const clientToken = generateToken();

const item = (id: string): MenuTemplateItem | undefined => recorder.latestTrayMenu().find((entry) => entry.id === id);
const labels = (): string[] => recorder.latestTrayMenu().map((entry) => entry.label ?? `(${entry.type})`);
const activeProfileOnDisk = (): string | null =>
  (JSON.parse(readFileSync(join(dataDir, CONFIG_FILE_NAME), 'utf8')) as { activeProfileId: string | null }).activeProfileId;
/** The proxy's address as the tray shows it. */
const proxyOrigin = (): string => /http:\/\/127\.0\.0\.1:\d+/.exec(labels().join(' '))?.[0] ?? '';

function chat(overrides: Record<string, unknown> = {}) {
  return rawRequest(`${proxyOrigin()}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(overrides),
  });
}

beforeAll(async () => {
  gateway = await startGatewaySimulator({ streamChunkCount: 20, streamChunkIntervalMs: 50 });
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-shell-'));
  let config = addProfile(emptyConfig(), {
    id: 'main',
    name: 'Main gateway',
    baseUrl: gateway.baseUrl,
    prices: [{ model: 'gpt-4o-mini', inputPer1M: 400_000, outputPer1M: 800_000 }],
    // Below what one request costs: Airlock refuses before sending (its estimate is over the cap).
    budget: { dailyCredits: 0.001 },
  });
  config = addProfile(config, { id: 'backup', name: 'Backup gateway', baseUrl: gateway.baseUrl });
  config = addClientToken(config, tokenRecord('agent', clientToken, null, Date.now()));
  writeFileSync(join(dataDir, CONFIG_FILE_NAME), serializeConfig(setActiveProfile(config, 'main')));
  vi.stubEnv(KEYCHAIN_DIR_ENV, keychainDir);
  vi.stubEnv('NODE_OPTIONS', `--import=${STAND_IN_HOOKS}`);
  // The data directory is not the default one: its secrets are under its own accounts (dataDirSecrets.ts).
  const secrets = secretStoreForDataDir(keytarCalls(), dataDir, { env: process.env, platform: process.platform, homedir: homedir() });
  await secrets.set(gatewayKeyAccount('main'), SENTINEL_KEY);
  await secrets.set(gatewayKeyAccount('backup'), SENTINEL_KEY);
  await secrets.set(clientTokenAccount('agent'), clientToken);
  vi.stubEnv('AIRLOCK_DATA_DIR', dataDir);
  vi.stubEnv('AIRLOCK_PORT', '0');
  // As the instance the app relaunched for memory (electronRelaunch.test.ts): it runs on, whatever it lacks.
  vi.stubEnv(RELAUNCHED_ENV, '1');
  await import('../../../electron/main.ts');
  await vi.waitFor(() => {
    if (proxyOrigin() === '') throw new Error('the tray does not show the proxy address yet');
  });
});

afterAll(async () => {
  if (!app.exited) app.quit();
  await vi.waitFor(() => {
    if (!app.exited) throw new Error('the app has not exited yet');
  });
  await gateway?.close();
  vi.unstubAllEnvs();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  rmSync(keychainDir, { recursive: true, force: true });
});

describe('electron/main.ts in the stand-in', () => {
  it("starts its proxy and shows the window on the proxy's own UI, with the tray listing both profiles", async () => {
    await expect.poll(() => recorder.events).toContain('window:show');
    expect(recorder.events).toContain(`window:load ${proxyOrigin()}/_airlock/`);
    expect(recorder.events.filter((event) => event.startsWith('app:relaunch'))).toEqual([]);
    // The keys were read by the keychain helper, a utility process (keychainUtility.ts).
    expect(recorder.events).toContainEqual(expect.stringMatching(/^utility:spawn Airlock keychain keychainUtilityProcess\.ts \d+$/));
    expect(labels()).toEqual(expect.arrayContaining(['Main gateway', 'Backup gateway', 'Pause proxy', 'Open Airlock', 'Quit Airlock']));
    expect(item('profile:main')?.checked).toBe(true);
    expect(recorder.trayTooltips.at(-1)).toContain('Airlock');
  });

  it("switches profile from the tray's radio items, and the tray follows", async () => {
    const menusBefore = recorder.trayMenus.length;
    item('profile:backup')?.click?.();
    await expect.poll(activeProfileOnDisk).toBe('backup');
    await expect.poll(() => item('profile:backup')?.checked).toBe(true);
    expect(item('profile:main')?.checked).toBe(false);
    expect(recorder.trayMenus.length).toBeGreaterThan(menusBefore);

    item('profile:main')?.click?.();
    // The clicked radio item marks itself at once: the switch is done when the config file says so.
    await expect.poll(activeProfileOnDisk).toBe('main');
    await expect.poll(() => item('profile:main')?.checked).toBe(true);
  });

  it('notifies once when a budget cap refuses a request, and the tray says so', async () => {
    const refused = await chat();
    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.body).error.code).toBe('budget_exceeded');
    await expect.poll(() => recorder.notifications.map((notice) => notice.title)).toEqual(['Budget reached']);
    expect(recorder.notifications[0]?.body).toContain('requests are refused until the cap resets');
    await expect.poll(() => labels().some((label) => label.startsWith('Budget reached:'))).toBe(true);
    // Still reached on the next refusal: no second notification.
    expect((await chat()).status).toBe(402);
    await expect.poll(() => recorder.events.filter((event) => event === 'notification:Budget reached').length).toBe(1);
  });

  it('asks before a tray switch while a request is in flight, and keeps the profile when the user cancels', async () => {
    // The backup profile has no budget, so the stream is served.
    item('profile:backup')?.click?.();
    await expect.poll(activeProfileOnDisk).toBe('backup');
    await expect.poll(() => item('profile:backup')?.checked).toBe(true);
    expect(recorder.dialogs).toEqual([]);
    const received = gateway.received.length;
    const stream = chat({ stream: true });
    await expect.poll(() => gateway.received.length).toBe(received + 1);

    recorder.dialogResponse = 1;
    item('profile:main')?.click?.();
    await expect.poll(() => recorder.dialogs.length).toBe(1);
    expect(recorder.dialogs[0]).toMatchObject({ message: 'Switch to Main gateway now?', buttons: ['Switch anyway', 'Cancel'] });
    expect(recorder.dialogs[0]?.detail).toContain(
      "1 request in flight: they finish on the current profile, but the agents' next requests go to Main gateway.",
    );
    // Cancelled: the tray's mark goes back to the profile still active.
    await expect.poll(() => item('profile:backup')?.checked).toBe(true);
    expect(item('profile:main')?.checked).toBe(false);
    expect(activeProfileOnDisk()).toBe('backup');

    recorder.dialogResponse = 0;
    item('profile:main')?.click?.();
    await expect.poll(activeProfileOnDisk).toBe('main');
    expect(recorder.dialogs).toHaveLength(2);
    recorder.dialogResponse = null;
    expect((await stream).status).toBe(200);
  });

  it('lets a stream in flight finish before it quits', async () => {
    // The backup profile has no budget, so the stream is served.
    item('profile:backup')?.click?.();
    await expect.poll(activeProfileOnDisk).toBe('backup');
    await expect.poll(() => item('profile:backup')?.checked).toBe(true);
    const received = gateway.received.length;
    const stream = chat({ stream: true });
    await expect.poll(() => gateway.received.length).toBe(received + 1);

    item('quit')?.click?.();
    expect(recorder.events).toContain('app:quit-deferred');
    expect(app.exited).toBe(false);
    const answer = await stream;
    expect(answer.status).toBe(200);
    expect(answer.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    await expect.poll(() => app.exited).toBe(true);
    // The order a user sees: the stream ends, the tray goes, then the app exits.
    const trayGone = recorder.events.lastIndexOf('tray:destroy');
    expect(trayGone).toBeGreaterThan(recorder.events.indexOf('app:quit-deferred'));
    expect(recorder.events.lastIndexOf('app:exit')).toBeGreaterThan(trayGone);
    expect(recorder.events).toContain('window:closed');
  });
});
