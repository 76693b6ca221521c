import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEEDLE_WORD, seedRequestLog, type SeededRow } from './support/seedRequestLog.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

const SEEDED_ROWS = 50_000;
/** Rows a virtualised list keeps in the DOM: the viewport plus overscan, never the whole list. */
const MAX_ROWS_IN_DOM = 100;
/** Bound on End presses while reaching the oldest row: one press loads every older page by itself. */
const MAX_END_PRESSES = 100;

let session: WindowSession;
let page: Page;
/** Newest first, as the list shows them. */
let newestFirst: SeededRow[];
/** The narrowed list the paging tests walk to its end (a sixth of the log), newest first. */
const PAGED = { model: 'gpt-4o', clientName: 'aider' } as const;
let paged: SeededRow[];

interface RenderedRow {
  id: string;
  position: number;
  setSize: number;
}

/** The option elements in the DOM, in list order. */
async function renderedRows(): Promise<RenderedRow[]> {
  const rows = await page.locator('[role="option"]').evaluateAll((elements) =>
    elements.map((element) => ({
      id: element.getAttribute('data-request-id') ?? '',
      position: Number(element.getAttribute('aria-posinset')),
      setSize: Number(element.getAttribute('aria-setsize')),
    })),
  );
  return rows.sort((left, right) => left.position - right.position);
}

async function setSize(): Promise<number> {
  return (await renderedRows())[0]?.setSize ?? 0;
}

/**
 * Runs in the page: presses End on the list, waits a frame at a time until the next page is in,
 * and repeats until the list knows its size; then once more to reach the oldest row. Timed in the
 * page, so the figure is the window's, not the test driver's polling.
 */
async function endUntilOldest(maxPresses: number): Promise<{ elapsedMs: number; presses: number }> {
  const listbox = document.querySelector('[role="listbox"]') as HTMLElement;
  const count = () => document.querySelector('.list-count')?.textContent ?? '';
  const sizeKnown = () => document.querySelector('[role="option"]')?.getAttribute('aria-setsize') !== '-1';
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const pressEnd = () => listbox.dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true }));
  const startedMs = performance.now();
  let presses = 0;
  while (!sizeKnown() && presses < maxPresses) {
    const before = count();
    pressEnd();
    presses += 1;
    const deadlineMs = performance.now() + 10_000;
    while (count() === before && !sizeKnown() && performance.now() < deadlineMs) await nextFrame();
  }
  // The last page arrived below the row we were on: one more End reaches the oldest row.
  pressEnd();
  await nextFrame();
  return { elapsedMs: performance.now() - startedMs, presses: presses + 1 };
}

function list() {
  return page.getByRole('listbox', { name: 'Requests, newest first' });
}

/** Whether every row in the DOM is the row `expected` has at its position (and some row is shown). */
async function showsRowsOf(expected: readonly SeededRow[]): Promise<boolean> {
  const rows = await renderedRows();
  return rows.length > 0 && rows.every((row) => expected[row.position - 1]?.id === row.id);
}

/**
 * Fills the filter bar (each field a debounced reload) and waits until the list shows `expected`:
 * its first row alone would already match after the first of several fields took effect.
 */
async function applyFilters(
  fields: Partial<Record<'Search' | 'Model' | 'Client' | 'Status', string>>,
  expected: readonly SeededRow[],
): Promise<void> {
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  await expect.poll(() => showsRowsOf(expected)).toBe(true);
}

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  const seeded = seedRequestLog(session.harness.dataDir, {
    count: SEEDED_ROWS,
    newestStartedAtMs: Date.now() - 1_000,
    spacingMs: 50,
    profileId: 'main',
  });
  newestFirst = seeded.toReversed();
  paged = newestFirst.filter((row) => row.model === PAGED.model && row.clientName === PAGED.clientName);
}, 60_000);

afterAll(async () => {
  await session?.close();
});

describe('Live with 50,000 logged requests', () => {
  it('keeps the DOM bounded and pages through every row of a narrowed list when scrolled to the end', async () => {
    await page.goto(session.screenUrl('live'));
    await expect.poll(async () => (await renderedRows())[0]?.id).toBe(newestFirst[0]?.id);
    expect((await renderedRows()).length).toBeLessThan(MAX_ROWS_IN_DOM);
    expect(await setSize()).toBe(-1);
    await session.shot('20-live-50k-top');

    // Paging costs a round trip per 200 rows: a sixth of the log (42 pages) shows every page
    // arriving in order up to the oldest row, at a sixth of the time of the whole log.
    await applyFilters({ Model: PAGED.model, Client: PAGED.clientName }, paged);
    await list().focus();
    const { elapsedMs, presses } = await page.evaluate(endUntilOldest, MAX_END_PRESSES);
    console.log(`[e2e] Live: End pressed ${presses} times reached the oldest of ${paged.length} rows in ${Math.round(elapsedMs)} ms`);
    await expect.poll(async () => (await renderedRows()).at(-1)?.id).toBe(paged.at(-1)?.id);

    const rows = await renderedRows();
    expect(rows.at(-1)).toEqual({ id: paged.at(-1)?.id, position: paged.length, setSize: paged.length });
    expect(rows.length).toBeLessThan(MAX_ROWS_IN_DOM);
    expect(await page.getByText(`${paged.length.toLocaleString('en-US')} requests`, { exact: true }).count()).toBe(1);
    await session.shot('21-live-50k-end');
  });

  it('moves with ArrowDown, Home and End and opens the detail with Enter', async () => {
    await list().focus();
    await page.keyboard.press('Home');
    await expect.poll(() => list().getAttribute('aria-activedescendant')).toBe(`request-${paged[0]?.id}`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const third = paged[2] as SeededRow;
    await expect.poll(() => list().getAttribute('aria-activedescendant')).toBe(`request-${third.id}`);
    expect(await page.locator(`#request-${third.id}`).getAttribute('aria-selected')).toBe('true');

    await page.keyboard.press('Enter');
    const detail = page.getByRole('region', { name: 'Request detail' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Request detail');
    await expect.poll(() => detail.textContent()).toContain(`upstream-${third.index}`);
    // The narrower list drops columns instead of running under the detail (its header once did).
    const detailLeft = (await detail.boundingBox())?.x ?? 0;
    const headerCellRights = await page
      .locator('.request-row.header .cell')
      .evaluateAll((cells) => cells.filter((cell) => cell.getClientRects().length > 0).map((cell) => cell.getBoundingClientRect().right));
    expect(headerCellRights.length).toBeGreaterThan(0);
    expect(Math.max(...headerCellRights)).toBeLessThanOrEqual(detailLeft + 1);
    await session.shot('22-live-50k-detail');

    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('listbox');
    await page.keyboard.press('End');
    await expect.poll(() => list().getAttribute('aria-activedescendant')).toBe(`request-${paged.at(-1)?.id}`);
  });

  it('reaches the oldest of all 50,000 rows with one End press', async () => {
    await page.goto(session.screenUrl('live'));
    await page.reload();
    const firstRowsMs = await page.evaluate(async () => {
      const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      while (!document.querySelector('[role="option"]')) await nextFrame();
      return performance.now();
    });
    await list().focus();
    const endMs = await page.evaluate(async () => {
      const listbox = document.querySelector('[role="listbox"]') as HTMLElement;
      const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      const startedMs = performance.now();
      listbox.dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true }));
      const deadlineMs = startedMs + 50_000;
      while (document.querySelector('[role="option"]')?.getAttribute('aria-setsize') === '-1' && performance.now() < deadlineMs)
        await nextFrame();
      return performance.now() - startedMs;
    });
    await expect.poll(async () => (await renderedRows()).at(-1)?.id).toBe(newestFirst.at(-1)?.id);
    expect((await renderedRows()).at(-1)).toEqual({ id: newestFirst.at(-1)?.id, position: SEEDED_ROWS, setSize: SEEDED_ROWS });
    expect((await renderedRows()).length).toBeLessThan(MAX_ROWS_IN_DOM);
    const heapMb = await page.evaluate(() => {
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      return memory ? Math.round(memory.usedJSHeapSize / 1024 / 1024) : null;
    });
    console.log(
      `[e2e] Live with ${SEEDED_ROWS} rows: first rows ${Math.round(firstRowsMs)} ms after navigation; one End press to the oldest ${Math.round(endMs)} ms; JS heap ${heapMb ?? '?'} MB; DOM rows ${(await renderedRows()).length}`,
    );
    await session.shot('25-live-50k-oldest');
  });

  it('narrows the 50,000 rows with filters and full-text search', async () => {
    const failedGpt4oAider = newestFirst.filter((row) => row.failed && row.model === 'gpt-4o' && row.clientName === 'aider');
    await applyFilters({ Model: 'gpt-4o', Client: 'aider', Status: '429' }, failedGpt4oAider);
    // The oldest row, selected above, is filtered out: the list must not point at a row it no longer has.
    expect(failedGpt4oAider.some((row) => row.id === paged.at(-1)?.id)).toBe(false);
    expect(await list().getAttribute('aria-activedescendant')).toBeNull();
    const shown = await renderedRows();
    expect(shown.map((row) => row.id)).toEqual(failedGpt4oAider.slice(0, shown.length).map((row) => row.id));
    expect(await setSize()).toBe(-1);
    await session.shot('23-live-50k-filtered');

    await applyFilters({ Model: '', Client: '', Status: '' }, newestFirst);
    const withNeedle = newestFirst.filter((row) => row.hasNeedle);
    await applyFilters({ Search: NEEDLE_WORD }, withNeedle);
    await expect.poll(setSize).toBe(withNeedle.length);
    await list().focus();
    await page.keyboard.press('End');
    await expect.poll(async () => (await renderedRows()).at(-1)?.id).toBe(withNeedle.at(-1)?.id);
    await session.shot('24-live-50k-search');

    const failedWithNeedle = withNeedle.filter((row) => row.failed);
    expect(failedWithNeedle.length).toBeGreaterThan(0);
    await applyFilters({ Status: 'error' }, failedWithNeedle);
    await expect.poll(async () => (await renderedRows()).map((row) => row.id)).toEqual(failedWithNeedle.map((row) => row.id));
    expect(await setSize()).toBe(failedWithNeedle.length);
  });
});
