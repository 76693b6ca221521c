import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { RequestFilters, RequestListQuery } from '../../../proxy/contracts/requests.ts';
import { MAX_PAGE_LIMIT } from '../../../proxy/contracts/log.ts';
import type { ControlClient } from '../api/client.ts';
import { ReconnectContext } from '../common/ScreenBoundary.tsx';
import type { LiveStore } from './liveStore.ts';

export const PAGE_SIZE = 200;

export type PagesState = { kind: 'loading' } | { kind: 'error'; error: Error } | { kind: 'idle'; hasMore: boolean };

/**
 * Loads the log page by page (keyset cursor) into the live store, starting over when the filters
 * change. `loadToEnd` (the End key) keeps loading the largest pages the API gives until the oldest
 * request is in, instead of one page per key press (250 presses for 50,000 rows).
 */
export function useRequestPages(
  client: ControlClient,
  store: LiveStore,
  filters: RequestFilters,
): PagesState & { loadMore: () => void; loadToEnd: () => void; retry: () => void } {
  const [state, setState] = useState<PagesState>({ kind: 'loading' });
  const cursor = useRef<string | null>(null);
  const busy = useRef(false);
  const toEnd = useRef(false);
  const generation = useRef(0);

  const load = useCallback(
    (first: boolean) => {
      if (busy.current) return;
      busy.current = true;
      const current = generation.current;
      if (first) setState({ kind: 'loading' });
      const limit = toEnd.current ? MAX_PAGE_LIMIT : PAGE_SIZE;
      const dropsAtRequest = store.drops;
      client.listRequests({ ...filters, limit, ...(first ? {} : nextPagePosition(store, filters, cursor.current)) }).then(
        (page) => {
          busy.current = false;
          if (current !== generation.current) return;
          // Rows went back to the log while this page was under way: it would follow them with a gap.
          if (!first && store.drops !== dropsAtRequest) {
            load(false);
            return;
          }
          cursor.current = page.nextCursor;
          store.addPage(page.items);
          store.publish();
          setState({ kind: 'idle', hasMore: page.nextCursor !== null });
          if (page.nextCursor === null) toEnd.current = false;
          else if (toEnd.current) load(false);
        },
        (error: Error) => {
          busy.current = false;
          toEnd.current = false;
          if (current === generation.current) setState({ kind: 'error', error });
        },
      );
    },
    [client, store, filters],
  );

  // The live channel's first frame lists only the requests in flight: after it came back, rows that
  // ended meanwhile would stay in flight and rows that came and went would be missing, so the list
  // starts over from the log. The first connection (0 to 1) is not a return.
  const returns = Math.max(useContext(ReconnectContext), 1);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `returns` is not read; a new value means the channel came back
  useEffect(() => {
    generation.current += 1;
    busy.current = false;
    toEnd.current = false;
    cursor.current = null;
    store.reset(filters);
    load(true);
  }, [filters, store, load, returns]);

  const loadMore = useCallback(() => {
    if (store.droppedOlderRows ? store.olderRowsWanted : cursor.current !== null) load(false);
  }, [load, store]);

  const loadToEnd = useCallback(() => {
    if (cursor.current === null && !store.droppedOlderRows) return;
    toEnd.current = true;
    load(false);
  }, [load, store]);

  return { ...state, loadMore, loadToEnd, retry: () => load(true) };
}

/**
 * Where the next older page starts: after the last page, or, once the list dropped its oldest rows
 * (LIVE_ROWS_KEPT), at the oldest row it kept; rows of that same millisecond it has are skipped
 * by `addPage`, the rest fill in what it dropped.
 */
function nextPagePosition(store: LiveStore, filters: RequestFilters, cursor: string | null): Partial<RequestListQuery> {
  const oldestKeptMs = store.droppedOlderRows ? store.oldestStartedAtMs() : null;
  if (oldestKeptMs !== null) return { toMs: Math.min(filters.toMs ?? oldestKeptMs, oldestKeptMs) };
  return cursor === null ? {} : { cursor };
}
