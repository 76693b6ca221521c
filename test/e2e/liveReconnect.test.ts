import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/windowSession.ts';
import { servedAirlock } from './support/servedAirlock.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../proxy/contracts/clientTokens.ts';
import type { Airlock } from '../../proxy/app/startAirlock.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../simulator/index.ts';
import { CONTROL_TOKEN } from '../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';

/**
 * The live view across the proxy restarting (its event stream drops and comes back) and the
 * window's session ending, as `airlock serve` restarted on the same port and data directory.
 */
let dataDir = '';
let userDataDir = '';
let airlock: Airlock | null = null;
let simulator: GatewaySimulator;
let context: BrowserContext;
let page: Page;
let clientToken = '';

const served = servedAirlock(() => dataDir);
const start = served.start;

function running(): Airlock {
  if (!airlock) throw new Error('Airlock is not running');
  return airlock;
}

const api = <T>(pathAndQuery: string, method = 'GET', body?: unknown): Promise<T> => served.api<T>(running(), pathAndQuery, method, body);

/** Stops Airlock and starts it again on the same port: the window's event stream drops. */
async function restart(): Promise<void> {
  const { port } = running().proxy;
  await running().stop();
  airlock = null;
  airlock = await start(port);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-reconnect-'));
  userDataDir = mkdtempSync(path.join(tmpdir(), 'airlock-chromium-'));
  simulator = await startGatewaySimulator();
  airlock = await start(0);
  await api('/profiles', 'POST', { id: 'main', name: 'Main gateway', baseUrl: simulator.baseUrl });
  await api('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await api('/profiles/main/activate', 'POST');
  clientToken = (await api<TokenSecretResponse>('/tokens', 'POST', { name: 'reconnect-e2e' })).token;
  context = await launchChromium(userDataDir);
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(running().control.createLoginUrl());
  await page.locator('.status-bar').getByText('Profile:').waitFor();
});

afterAll(async () => {
  await context?.close();
  await airlock?.stop();
  await simulator?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('deep links', () => {
  it('says a request id that is not in the log is not there', async () => {
    // Opened as a new window would be, not as a change of the address of a loaded one.
    await page.goto('about:blank');
    await page.goto(`${running().proxy.url}/_airlock/#/live/no-such-request`);
    const detail = page.getByRole('region', { name: 'Request detail' });
    await detail.getByRole('alert').waitFor();
    expect(await detail.getByRole('alert').textContent()).toMatch(/not found/i);
  });

  it('keeps the Live screen for an address whose id is not valid percent-encoding', async () => {
    await page.goto('about:blank');
    await page.goto(`${running().proxy.url}/_airlock/#/live/%E0%A4%A`);
    await page.getByRole('search', { name: 'Filter requests' }).waitFor();
    expect(await page.getByText(/The Live screen failed/).count()).toBe(0);
    const detail = page.getByRole('region', { name: 'Request detail' });
    await detail.getByRole('alert').waitFor();
    expect(await detail.getByRole('alert').textContent()).toMatch(/not found/i);
  });
});

describe('the proxy restarting under an open window', () => {
  it('shows the requests that ran while its event stream was down, once it is back', async () => {
    const origin = running().proxy.url;
    await page.goto(`${origin}/_airlock/#/live`);
    await page.locator('[role="listbox"], .state-empty').first().waitFor();
    await page.locator('.status-bar .dot.running').waitFor();
    // The window cannot reconnect until the request below has run and ended.
    const events = '**/_airlock/api/events';
    await page.route(events, (route) => route.abort('connectionrefused'));
    await restart();
    await page.locator('.status-bar .dot.offline').waitFor();
    const response = await rawRequest(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody({ messages: [{ role: 'user', content: 'sent while the window was away' }] }),
    });
    expect(response.status).toBe(200);
    const requestId = String(response.headers['x-airlock-request-id']);
    await running().log.flush();
    await page.unroute(events);
    await page.locator('.status-bar .dot.running').waitFor();
    await expect.poll(() => page.locator(`.request-row[data-request-id="${requestId}"]`).count()).toBe(1);
  });
});

/** A chat stream's event carrying `content`, as the gateway sends it. */
const chatChunk = (content: string): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** Sends a streamed chat request and resolves its request id once the answer's first text arrived. */
function streamStarted(url: string, token: string): Promise<{ requestId: string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` } }, (res) => {
      const ended = new Promise<void>((settle) => res.once('close', settle));
      res.once('data', () => resolve({ requestId: String(res.headers['x-airlock-request-id']), ended }));
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end(chatBody({ stream: true, messages: [{ role: 'user', content: 'still streaming when the proxy went away' }] }));
  });
}

describe('a stream shown live when the proxy restarts', () => {
  it('shows how it ended once the window is back, not a row still streaming', async () => {
    const origin = running().proxy.url;
    await page.goto(`${origin}/_airlock/#/live`);
    await page.locator('[role="listbox"], .state-empty').first().waitFor();
    await page.locator('.status-bar .dot.running').waitFor();
    // The gateway sends its first text, then nothing more: the stream runs until the proxy stops.
    const first = chatChunk('half an answer');
    simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'text/event-stream',
      text: `${first}${chatChunk(' and the rest')}`,
      stallAfterBytes: first.length,
    });
    const stream = await streamStarted(`${origin}/v1/chat/completions`, clientToken);
    const row = page.locator(`.request-row[data-request-id="${stream.requestId}"]`);
    await row.getByText('streaming', { exact: true }).waitFor();

    const events = '**/_airlock/api/events';
    await page.route(events, (route) => route.abort('connectionrefused'));
    await restart();
    await stream.ended;
    await page.locator('.status-bar .dot.offline').waitFor();
    await page.unroute(events);
    await page.locator('.status-bar .dot.running').waitFor();
    // The stop ended it (its error class says so); the log has that end, the window shows it.
    await expect.poll(() => row.getByText('proxy_stopping').count()).toBe(1);
    expect(await row.getByText('streaming', { exact: true }).count()).toBe(0);
  });
});

describe('figures across a restart', () => {
  it('says what it cannot know while Airlock is away, and the Spend screen agrees with the status bar once it is back', async () => {
    const origin = running().proxy.url;
    await api('/profiles/main/prices', 'PUT', {
      prices: [{ model: 'gpt-4o-mini', inputPer1M: 4000, outputPer1M: 8000 }],
      priceMultiplier: 1,
    });
    const chat = async (content: string) => {
      const answer = await rawRequest(`${origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
        body: chatBody({ messages: [{ role: 'user', content }] }),
      });
      expect(answer.status).toBe(200);
    };
    await chat('priced before the restart');
    await running().log.flush();
    await page.goto(`${origin}/_airlock/#/spend`);
    await page.locator('.status-bar .dot.running').waitFor();
    const todayCard = page.locator('.card.total').filter({ has: page.getByRole('heading', { name: 'Today', exact: true }) });
    const statusToday = page
      .locator('.status-bar .status-item')
      .filter({ hasText: /^Today/ })
      .locator('strong');
    await expect.poll(async () => (await todayCard.locator('.big').textContent()) === (await statusToday.textContent())).toBe(true);

    // A request in flight when the proxy stops: the stop ends it, so the window must not go on counting it.
    const held = simulator.holdNext('/chat/completions');
    const inFlight = chat('in flight at the stop').catch(() => undefined);
    await held.arrived;
    await page.locator('.status-bar').getByText('1 in flight').waitFor();
    const events = '**/_airlock/api/events';
    await page.route(events, (route) => route.abort('connectionrefused'));
    const stopped = running().stop();
    held.release();
    await stopped;
    airlock = null;
    await inFlight;
    await page.locator('.status-bar .dot.offline').waitFor();
    const bar = page.locator('.status-bar');
    expect(await bar.getByText('1 in flight').count()).toBe(0);
    expect(await bar.textContent()).toMatch(/Today \(as of \d\d:\d\d\)/);
    expect(await bar.getByRole('button', { name: 'Pause proxy' }).isDisabled()).toBe(true);

    // Back, with requests priced while the window could not hear of them.
    airlock = await start(Number(new URL(origin).port));
    await chat('priced while the window was away');
    await chat('and another');
    await running().log.flush();
    await page.unroute(events);
    await page.locator('.status-bar .dot.running').waitFor();
    await expect.poll(async () => (await todayCard.locator('.big').textContent()) === (await statusToday.textContent())).toBe(true);
    expect(await statusToday.textContent()).not.toBe('0 credits');

    // Spend while the screen is open: it says its figures are behind rather than pass them off as today's.
    const behind = page.getByRole('status').filter({ hasText: 'These figures are behind' });
    expect(await behind.count()).toBe(0);
    await chat('priced while the Spend screen is open');
    await behind.waitFor();
    expect(await behind.textContent()).toContain(`today's spend is now ${await statusToday.textContent()}`);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await behind.waitFor({ state: 'detached' });
    expect(await todayCard.locator('.big').textContent()).toBe(await statusToday.textContent());
  });
});

describe('the window session ending', () => {
  it('asks to sign in again instead of reconnecting for ever', async () => {
    await page.goto(`${running().proxy.url}/_airlock/#/live`);
    await page.locator('.status-bar .dot.running').waitFor();
    // The session is gone (expired after its working day, or its cookie was cleared); the stream drops.
    await context.clearCookies();
    await restart();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('session with Airlock has ended');
    // Signing in again with the control token brings the window back.
    await page.getByLabel('Or paste the control token').fill(CONTROL_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.status-bar .dot.running').waitFor();
  });
});
