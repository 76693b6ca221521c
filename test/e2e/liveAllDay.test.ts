import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_ROWS_KEPT } from '../../renderer/src/live/liveStore.ts';
import { chatBody, JSON_HEADERS } from '../support/http.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/** More requests than the Live list keeps, sent while the window watches. */
const SENT = LIVE_ROWS_KEPT + 60;
/** Requests in flight at once while they are sent. */
const CONCURRENCY = 4;

let session: WindowSession;
let page: Page;
let token = '';

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  token = await createClientToken(session.harness, 'all-day');
  // Agents this busy set the burst guard above them (its refusals would show as one grouped line).
  const limits = await session.harness.api('/burst-limits', { method: 'PUT', body: JSON.stringify({ maxRequestsPerMinute: 100_000 }) });
  if (!limits.ok) throw new Error(`burst limits: ${limits.status} ${await limits.text()}`);
}, 60_000);

afterAll(async () => {
  await session?.close();
});

/**
 * Sends `count` chat requests through the window's proxy; resolves their request ids in the order
 * they were sent. The first goes alone, so it is the oldest row whatever the others' order.
 */
async function sendRequests(count: number): Promise<string[]> {
  const first = await sendIds(session, token, 1);
  return [...first, ...(await sendIds(session, token, count - 1))];
}

/** The option elements in the DOM with their place in the list, in list order. */
async function renderedRows(): Promise<{ id: string; position: number; setSize: number }[]> {
  const rows = await page.locator('[role="option"]').evaluateAll((elements) =>
    elements.map((element) => ({
      id: element.getAttribute('data-request-id') ?? '',
      position: Number(element.getAttribute('aria-posinset')),
      setSize: Number(element.getAttribute('aria-setsize')),
    })),
  );
  return rows.sort((left, right) => left.position - right.position);
}

describe('the Live list of a window left open beside busy agents', () => {
  it('keeps the newest rows, says older ones moved to the log, and End brings every one back', async () => {
    await page.goto(session.screenUrl('live'));
    await page.locator('.status-bar .dot.running').waitFor();
    const ids = await sendRequests(SENT);
    const hint = page.getByText(`Live keeps the newest ${LIVE_ROWS_KEPT.toLocaleString('en-US')} requests; older ones moved to the log`, {
      exact: false,
    });
    await hint.waitFor();
    const newest = ids.at(-1);
    await expect.poll(async () => (await renderedRows()).some((row) => row.id === newest)).toBe(true);
    // The window holds the newest rows only: the list's size is unknown (-1) until the log's are paged in.
    expect((await renderedRows())[0]?.setSize).toBe(-1);
    await session.shot('30-live-all-day-bounded');

    const list = page.getByRole('listbox', { name: 'Requests, newest first' });
    await list.focus();
    await page.keyboard.press('End');
    await expect.poll(async () => (await renderedRows()).at(-1)?.id).toBe(ids[0]);
    expect((await renderedRows()).at(-1)).toEqual({ id: ids[0], position: SENT, setSize: SENT });
    expect(await hint.count()).toBe(0);
  });
});

// A client refused over and over (the burst guard paused it; a budget cap does the same) beside a
// nearly empty list: its refusals show as one line, the few rows under it fit the window, and the
// list must neither keep every refusal nor ask the log again, at each one, for rows it let go.
describe('the Live list under a storm of refusals, with little else logged', () => {
  let stormSession: WindowSession;
  let stormPage: Page;
  const ALLOWED_PER_MINUTE = 20;
  const STORM = 3 * LIVE_ROWS_KEPT;

  beforeAll(async () => {
    stormSession = await openWindowSession();
    stormPage = stormSession.page;
  }, 60_000);

  afterAll(async () => {
    await stormSession?.close();
  });

  it('keeps the newest rows and reads no page it was not asked for', async () => {
    const stormToken = await createClientToken(stormSession.harness, 'storm');
    const limits = await stormSession.harness.api('/burst-limits', {
      method: 'PUT',
      body: JSON.stringify({ maxRequestsPerMinute: ALLOWED_PER_MINUTE }),
    });
    expect(limits.ok).toBe(true);
    await stormPage.goto(stormSession.screenUrl('live'));
    await stormPage.locator('.status-bar .dot.running').waitFor();
    let pageReads = 0;
    stormPage.on('request', (request) => {
      if (/\/_airlock\/api\/requests(\?|$)/.test(request.url())) pageReads += 1;
    });

    const statuses = await sendAs(stormSession, stormToken, STORM);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(ALLOWED_PER_MINUTE);
    // Resumed, one more request: its row comes after every refusal's frame.
    const resumed = await stormSession.harness.api('/clients/storm/resume', { method: 'POST' });
    expect(resumed.ok).toBe(true);
    const [lastId] = await sendIds(stormSession, stormToken, 1);
    await stormPage.locator(`.request-row[data-request-id="${lastId}"]`).waitFor();

    const group = stormPage.getByRole('option', { name: /identical refusals/ });
    const refusalsShown = Number(/^(\d+) identical refusals/.exec((await group.getAttribute('aria-label')) ?? '')?.[1]);
    expect(refusalsShown).toBeGreaterThan(0);
    expect(refusalsShown).toBeLessThanOrEqual(LIVE_ROWS_KEPT);
    await stormPage.getByText(`Live keeps the newest ${LIVE_ROWS_KEPT.toLocaleString('en-US')} requests`, { exact: false }).waitFor();
    // The first page, and none for rows the list let go while nobody scrolled.
    expect(pageReads).toBeLessThanOrEqual(1);
    await stormSession.shot('31-live-refusal-storm');
  });
});

/** Sends `count` chat requests with `clientToken`, CONCURRENCY at a time; resolves their statuses in order. */
async function sendAs(target: WindowSession, clientToken: string, count: number): Promise<number[]> {
  return (await send(target, clientToken, count)).map((answer) => answer.status);
}

async function sendIds(target: WindowSession, clientToken: string, count: number): Promise<string[]> {
  return (await send(target, clientToken, count)).map((answer) => answer.requestId);
}

async function send(target: WindowSession, clientToken: string, count: number): Promise<{ status: number; requestId: string }[]> {
  const answers: { status: number; requestId: string }[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) {
      const response = await fetch(`${target.harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
        body: chatBody({ messages: [{ role: 'user', content: `request ${index}` }] }),
      });
      await response.arrayBuffer();
      answers[index] = { status: response.status, requestId: String(response.headers.get('x-airlock-request-id')) };
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return answers;
}
