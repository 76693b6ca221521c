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

/** Sends `count` chat requests through the proxy; resolves their request ids in the order they were sent. */
async function sendRequests(count: number): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) {
      const response = await fetch(`${session.harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        body: chatBody({ messages: [{ role: 'user', content: `request ${index}` }] }),
      });
      await response.arrayBuffer();
      ids[index] = String(response.headers.get('x-airlock-request-id'));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return ids;
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
