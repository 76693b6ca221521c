// @vitest-environment happy-dom
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { IN_FLIGHT_SUMMARY_DEFAULTS } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestListQuery, RequestPage, RequestSummary } from '../../../proxy/contracts/requests.ts';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { ReconnectContext } from '../../../renderer/src/common/ScreenBoundary.tsx';
import { LIVE_ROWS_KEPT, LiveStore } from '../../../renderer/src/live/liveStore.ts';
import { PAGE_SIZE, useRequestPages } from '../../../renderer/src/live/useRequestPages.ts';

afterEach(cleanup);

const row = (id: string, startedAtMs: number, state: RequestSummary['state']): RequestSummary => ({
  ...IN_FLIGHT_SUMMARY_DEFAULTS,
  id,
  startedAtMs,
  state,
});

/** The log as the window's list reads it: whatever page it holds when asked. */
function logOf(firstPage: RequestSummary[]): { client: ControlClient; pages: RequestSummary[][] } {
  const pages = [firstPage];
  const client = {
    listRequests: async (): Promise<RequestPage> => ({ items: pages.at(-1) ?? [], nextCursor: null }),
  } as unknown as ControlClient;
  return { client, pages };
}

describe('the live list when its live channel comes back', () => {
  // The first frame after connecting lists only the requests in flight: a row that ended while the
  // window was not connected never gets its end, and one that came and went is never seen.
  it('reads the log again: rows that ended meanwhile end, rows that came and went appear', async () => {
    const store = new LiveStore();
    const log = logOf([row('a', 1, 'in_flight')]);
    const filters = {};
    let reconnects = 1;
    const { rerender } = renderHook(() => useRequestPages(log.client, store, filters), {
      wrapper: ({ children }: { children: ReactNode }) => (
        <ReconnectContext.Provider value={reconnects}>{children}</ReconnectContext.Provider>
      ),
    });
    await waitFor(() => expect(store.getSnapshot().rows.get('a')?.state).toBe('in_flight'));

    log.pages.push([row('b', 2, 'done'), row('a', 1, 'done')]);
    reconnects = 2;
    rerender();
    await waitFor(() => expect(store.getSnapshot().order).toEqual(['b', 'a']));
    expect(store.getSnapshot().rows.get('a')?.state).toBe('done');
  });
});

/**
 * The log as GET /requests pages it: newest first, `toMs` inclusive, the cursor after the page's
 * last row (keyset on start time then id, as proxy/store/read/queries.ts reads it).
 */
function keysetLog(rows: RequestSummary[]): { client: ControlClient; queries: RequestListQuery[]; hold: () => () => void } {
  const queries: RequestListQuery[] = [];
  /** While set, answers wait for it: a page under way. */
  let held: Promise<void> | null = null;
  const hold = () => {
    let release: () => void = () => undefined;
    held = new Promise((resolve) => (release = resolve));
    return () => {
      held = null;
      release();
    };
  };
  const newestFirst = (answered: RequestSummary[]) =>
    answered.toSorted((left, right) => right.startedAtMs - left.startedAtMs || (right.id < left.id ? -1 : 1));
  const client = {
    listRequests: async (query: RequestListQuery): Promise<RequestPage> => {
      queries.push(query);
      const answered = rows.slice();
      await held;
      const after = query.cursor === undefined ? null : (JSON.parse(query.cursor) as [number, string]);
      const matching = newestFirst(answered).filter(
        (item) =>
          (query.toMs === undefined || item.startedAtMs <= query.toMs) &&
          (after === null || item.startedAtMs < after[0] || (item.startedAtMs === after[0] && item.id < after[1])),
      );
      const items = matching.slice(0, query.limit ?? PAGE_SIZE);
      const last = items.at(-1);
      return { items, nextCursor: matching.length > items.length && last ? JSON.stringify([last.startedAtMs, last.id]) : null };
    },
  } as unknown as ControlClient;
  return { client, queries, hold };
}

describe('the live list after its oldest rows went back to the log', () => {
  // Rows past LIVE_ROWS_KEPT leave the list as requests arrive; the page after them must start at
  // the oldest row kept, not after the last page loaded before they left (a gap of dropped rows).
  it('pages on from the oldest row it kept, with no gap', async () => {
    const logged = Array.from({ length: 1_500 }, (_, index) => row(`old${index + 1}`, index + 1, 'done'));
    const log = keysetLog(logged);
    const store = new LiveStore();
    const filters = {};
    const { result } = renderHook(() => useRequestPages(log.client, store, filters));
    await waitFor(() => expect(store.getSnapshot().order).toHaveLength(PAGE_SIZE));

    for (let index = 0; index < LIVE_ROWS_KEPT; index += 1) {
      const arrived = row(`new${index}`, 2_000 + index, 'done');
      logged.push(arrived);
      store.applyFrame({ requests: [{ requestId: arrived.id, fields: arrived, appendText: '' }], status: null });
    }
    store.publish();
    expect(store.getSnapshot().order.at(-1)).toBe('new0');

    // The user scrolls down to the oldest row kept.
    store.showRows(LIVE_ROWS_KEPT);
    result.current.loadMore();
    await waitFor(() => expect(store.getSnapshot().order.length).toBeGreaterThan(LIVE_ROWS_KEPT));
    // The page starts at the oldest row kept (known, so skipped) and goes on with the newest dropped.
    const paged = store.getSnapshot().order.slice(LIVE_ROWS_KEPT);
    expect(paged).toEqual(Array.from({ length: PAGE_SIZE - 1 }, (_, index) => `old${1_500 - index}`));
    expect(store.getSnapshot().olderRowsMoved).toBe(false);
  });
});

describe('a page under way when the list drops its oldest rows', () => {
  it('is asked for again from the new oldest row, so no dropped row is skipped', async () => {
    const logged = Array.from({ length: 1_500 }, (_, index) => row(`old${index + 1}`, index + 1, 'done'));
    const log = keysetLog(logged);
    const store = new LiveStore();
    const filters = {};
    const { result } = renderHook(() => useRequestPages(log.client, store, filters));
    await waitFor(() => expect(store.getSnapshot().order).toHaveLength(PAGE_SIZE));
    const arrive = (count: number, fromMs: number) => {
      for (let index = 0; index < count; index += 1) {
        const arrived = row(`new${fromMs + index}`, fromMs + index, 'done');
        logged.push(arrived);
        store.applyFrame({ requests: [{ requestId: arrived.id, fields: arrived, appendText: '' }], status: null });
      }
    };
    arrive(LIVE_ROWS_KEPT, 2_000);

    const release = log.hold();
    // The user scrolls down to the oldest row kept: a page more is kept below it.
    store.showRows(LIVE_ROWS_KEPT);
    result.current.loadMore();
    await waitFor(() => expect(log.queries).toHaveLength(2));
    // While that page is on its way, 250 more requests push the 50 oldest rows kept out.
    arrive(250, 5_000);
    release();
    const kept = LIVE_ROWS_KEPT + 200;
    await waitFor(() => expect(store.getSnapshot().order.length).toBeGreaterThan(kept));
    store.publish();
    const order = store.getSnapshot().order;
    expect(order.slice(kept - 1, kept + 2)).toEqual(['new2050', 'new2049', 'new2048']);
    expect(order).toContain('new2000');
    expect(order).toContain('old1500');
  });
});

describe('the live list after rows went back to the log while nobody scrolled', () => {
  // A short list (a storm of refusals shown as one line, a few rows under it) is always "near its
  // end": each request that pushed a row out had the list read it back from the log at once, a
  // page read per request for as long as the storm lasted.
  it('reads no page for them until the user moves the view', async () => {
    const logged = Array.from({ length: 1_500 }, (_, index) => row(`old${index + 1}`, index + 1, 'done'));
    const log = keysetLog(logged);
    const store = new LiveStore();
    const filters = {};
    const { result } = renderHook(() => useRequestPages(log.client, store, filters));
    await waitFor(() => expect(store.getSnapshot().order).toHaveLength(PAGE_SIZE));
    for (let index = 0; index < LIVE_ROWS_KEPT; index += 1) {
      const arrived = row(`new${index}`, 2_000 + index, 'done');
      logged.push(arrived);
      store.applyFrame({ requests: [{ requestId: arrived.id, fields: arrived, appendText: '' }], status: null });
    }
    const reads = log.queries.length;
    result.current.loadMore();
    expect(log.queries).toHaveLength(reads);

    store.showRows(LIVE_ROWS_KEPT);
    result.current.loadMore();
    expect(log.queries).toHaveLength(reads + 1);
  });
});
