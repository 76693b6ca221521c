import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/windowSession.ts';
import { servedAirlock } from './support/servedAirlock.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setActiveProfile } from '../../proxy/app/profiles/configMutations.ts';
import type { Airlock } from '../../proxy/app/startAirlock.ts';
import type { TokenSecretResponse } from '../../proxy/contracts/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../support/sentinel.ts';
import { seedRequestLog } from './support/seedRequestLog.ts';

/**
 * The figures each screen reads from the log, with the window open while Airlock restarts (its
 * event stream drops and comes back) and while the active profile is switched outside the window
 * (the tray, the CLI), as `airlock serve` restarted on the same port and data directory.
 */
let dataDir = '';
let userDataDir = '';
let airlock: Airlock | null = null;
let simulator: GatewaySimulator;
/** A gateway that limits each key on its own, the profile's first key with no requests left. */
let limitingSimulator: GatewaySimulator;
let context: BrowserContext;
let page: Page;
let clientToken = '';
const EVENTS = '**/_airlock/api/events';

const served = servedAirlock(() => dataDir);
const start = served.start;

function running(): Airlock {
  if (!airlock) throw new Error('Airlock is not running');
  return airlock;
}

const api = <T>(pathAndQuery: string, method = 'GET', body?: unknown): Promise<T> => served.api<T>(running(), pathAndQuery, method, body);

/** A turn of the agent session `sessionId`, logged before this resolves. */
async function turn(sessionId: string, content: string): Promise<void> {
  const answer = await rawRequest(`${running().proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}`, 'x-claude-code-session-id': sessionId },
    body: chatBody({ messages: [{ role: 'user', content }] }),
  });
  expect(answer.status).toBe(200);
}

/** The control API paths (no query) the page asks for from now on, in order. */
function apiCalls(): string[] {
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/_airlock/api/') && !url.pathname.endsWith('/events'))
      calls.push(url.pathname.slice('/_airlock/api'.length));
  });
  return calls;
}

/**
 * Airlock stops and starts again on the same port while the window cannot hear of it; `meanwhile`
 * runs against the new one before the window gets it back.
 */
async function restartUnheard(meanwhile: () => Promise<void>): Promise<void> {
  const { port } = running().proxy;
  await page.route(EVENTS, (route) => route.abort('connectionrefused'));
  await running().stop();
  airlock = null;
  await page.locator('.status-bar .dot.offline').waitFor();
  airlock = await start(port);
  await meanwhile();
  await running().log.flush();
  await page.unroute(EVENTS);
  await page.locator('.status-bar .dot.running').waitFor();
}

/** Opens a screen as a new window would. */
async function open(screen: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${running().proxy.url}/_airlock/#/${screen}`);
  await page.locator('.status-bar .dot.running').waitFor();
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-figures-'));
  userDataDir = mkdtempSync(path.join(tmpdir(), 'airlock-chromium-'));
  simulator = await startGatewaySimulator();
  limitingSimulator = await startGatewaySimulator({
    validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY],
    keyRequestLimits: { [SENTINEL_KEY]: 0 },
    keyRetryAfterS: 600,
  });
  airlock = await start(0);
  for (const [id, name] of [
    ['main', 'Main gateway'],
    ['spare', 'Spare gateway'],
  ]) {
    await api('/profiles', 'POST', { id, name, baseUrl: simulator.baseUrl });
    await api(`/profiles/${id}/key`, 'PUT', { key: SENTINEL_KEY });
  }
  await api('/profiles/main/activate', 'POST');
  clientToken = (await api<TokenSecretResponse>('/tokens', 'POST', { name: 'figures-e2e' })).token;
  context = await launchChromium(userDataDir);
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(running().control.createLoginUrl());
  await page.locator('.status-bar').getByText('Profile:').waitFor();
});

afterAll(async () => {
  await context?.close();
  await airlock?.stop();
  await simulator?.close();
  await limitingSimulator?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('screens of figures from the log, when Airlock comes back', () => {
  it('the Sessions list shows the turns that ran while the window was away, read once', async () => {
    await turn('session-across-restart', 'first turn');
    await running().log.flush();
    await open('sessions');
    const turns = page.locator('tr[data-session-id="session-across-restart"] td').nth(3);
    await expect.poll(() => turns.textContent()).toBe('1');
    const calls = apiCalls();
    await restartUnheard(async () => {
      await turn('session-across-restart', 'second turn');
      await turn('session-across-restart', 'third turn');
    });
    await expect.poll(() => turns.textContent()).toBe('3');
    // A Refresh asked after the return comes after every read the return caused.
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => calls.filter((call) => call === '/agent-sessions').length).toBe(2);
  });

  it('a session’s timeline shows them too', async () => {
    await page.locator('a', { hasText: 'first turn' }).click();
    const timeline = page.locator('.session-timeline');
    await timeline.getByText('third turn').first().waitFor();
    await restartUnheard(() => turn('session-across-restart', 'fourth turn, while away'));
    await timeline.getByText('fourth turn, while away').first().waitFor();
  });

  it('the Models screen shows the requests that ran meanwhile', async () => {
    await open('models');
    const requests = page
      .locator('.model-table tr', { has: page.locator('code', { hasText: /^gpt-4o-mini$/ }) })
      .locator('td')
      .nth(1);
    const before = Number(await requests.textContent());
    expect(before).toBeGreaterThan(0);
    await restartUnheard(() => turn('session-for-models', 'while the Models screen was open'));
    await expect.poll(async () => Number(await requests.textContent())).toBe(before + 1);
  });

  it('the Spend screen reads its figures once when opened, and once again when Airlock is back', async () => {
    const calls = apiCalls();
    await open('spend');
    await page.locator('.card.total .big').first().waitFor();
    // Opened on the Spend screen, the window's first connection is no return: one read, then the Refresh's.
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => calls.filter((call) => call === '/spend').length).toBe(2);
    // A read that failed while Airlock was away, then the return: one read, not one for the failure and one for the return.
    await restartUnheard(async () => {
      await page.route('**/_airlock/api/spend*', (route) => route.abort('connectionrefused'));
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.locator('.screen.spend .state-error').waitFor();
      await page.unroute('**/_airlock/api/spend*');
    });
    await page.locator('.card.total .big').first().waitFor();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => calls.filter((call) => call === '/spend').length).toBe(5);
  });
});

describe('the Live screen’s facet counts', () => {
  it('are read once for a list of more than a page, and once when Airlock is back', async () => {
    // More than a page (200 rows): the first page took in a page's worth of rows.
    seedRequestLog(dataDir, { count: 300, newestStartedAtMs: Date.now() - 60_000, spacingMs: 50, profileId: 'main' });
    const calls = apiCalls();
    await open('live');
    const facets = page.getByRole('navigation', { name: 'Facets' });
    await facets.waitFor();
    await page.locator('.list-count', { hasText: /^200 requests loaded/ }).waitFor();
    await restartUnheard(() => turn('session-for-facets', 'counted once Airlock is back'));
    await page.locator('.request-row', { hasText: 'counted once Airlock is back' }).waitFor();
    // A search typed now is read after every read the opening and the return caused.
    await page.getByLabel('Search', { exact: true }).fill('seed row 7');
    await expect.poll(() => calls.filter((call) => call === '/requests/facets').length).toBeGreaterThanOrEqual(3);
    await expect.poll(async () => (await facets.locator('summary', { hasText: /^Model/ }).textContent()) ?? '').toMatch(/^Model \(\d+\)$/);
    expect(calls.filter((call) => call === '/requests/facets')).toEqual(['/requests/facets', '/requests/facets', '/requests/facets']);
  });
});

describe('the active profile switched outside the window (the tray, the CLI)', () => {
  it('is named in the status bar, marked on the Profiles screen and lists its models, with no request run', async () => {
    await open('profiles');
    const activeMark = page
      .getByRole('navigation', { name: 'Profiles' })
      .locator('li', { has: page.locator('.badge', { hasText: 'active' }) });
    await expect.poll(() => activeMark.textContent()).toContain('Main gateway');
    // As the tray switches: the settings change, no control route is asked.
    await running().store.update((config) => setActiveProfile(config, 'spare'));
    await page.locator('.status-bar').getByText('Spare gateway').waitFor();
    await expect.poll(() => activeMark.textContent()).toContain('Spare gateway');

    const calls = apiCalls();
    await open('models');
    await page.locator('.model-table').waitFor();
    await running().store.update((config) => setActiveProfile(config, 'main'));
    await page.locator('.status-bar').getByText('Main gateway').waitFor();
    await expect.poll(() => calls.filter((call) => call === '/models').length).toBe(2);
  });
});

describe('the Profiles screen when Airlock is back', () => {
  it('shows a pooled key as the restarted proxy holds it, not rate limited as the old one had it', async () => {
    await api('/profiles', 'POST', { id: 'pooled', name: 'Pooled gateway', baseUrl: limitingSimulator.baseUrl });
    await api('/profiles/pooled/key', 'PUT', { key: SENTINEL_KEY });
    await api('/profiles/pooled/keys', 'POST', { key: SECOND_SENTINEL_KEY, label: 'team B' });
    const pinned = (await api<TokenSecretResponse>('/tokens', 'POST', { name: 'pooled-e2e', pinnedProfileId: 'pooled' })).token;
    // The first key is rate limited: the request moves on to team B's key, and the proxy leaves the first out for 10 minutes.
    const answer = await rawRequest(`${running().proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${pinned}` },
      body: chatBody(),
    });
    expect(answer.status).toBe(200);
    await open('profiles');
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /^Pooled gateway/ })
      .click();
    const states = page.getByRole('group', { name: 'Key pool' }).getByTestId('pool-key-state');
    await expect.poll(() => states.allTextContents()).toContainEqual(expect.stringContaining('rate limited by the gateway'));
    // A name typed but not saved stays typed through the list read again.
    const name = page.locator('article.profile-detail').getByLabel('Name', { exact: true });
    await name.fill('Pooled gateway, renamed');
    // A restarted proxy starts with every key ready: it will find out again at the next request.
    await restartUnheard(async () => undefined);
    await expect.poll(() => states.allTextContents()).toEqual(['ready', 'ready']);
    expect(await name.inputValue()).toBe('Pooled gateway, renamed');
  });
});
