import { useCallback, useEffect, useRef, useState } from 'react';
import type { RequestFilters } from '../../../proxy/contracts/api.ts';
import type { ControlClient } from '../api/client.ts';
import type { LiveStore } from './liveStore.ts';

export const PAGE_SIZE = 200;

export type PagesState = { kind: 'loading' } | { kind: 'error'; error: Error } | { kind: 'idle'; hasMore: boolean };

/** Loads the log page by page (keyset cursor) into the live store, starting over when the filters change. */
export function useRequestPages(
  client: ControlClient,
  store: LiveStore,
  filters: RequestFilters,
): PagesState & { loadMore: () => void; retry: () => void } {
  const [state, setState] = useState<PagesState>({ kind: 'loading' });
  const cursor = useRef<string | null>(null);
  const busy = useRef(false);
  const generation = useRef(0);

  const load = useCallback(
    (first: boolean) => {
      if (busy.current) return;
      busy.current = true;
      const current = generation.current;
      if (first) setState({ kind: 'loading' });
      client.listRequests({ ...filters, limit: PAGE_SIZE, ...(first || cursor.current === null ? {} : { cursor: cursor.current }) }).then(
        (page) => {
          busy.current = false;
          if (current !== generation.current) return;
          cursor.current = page.nextCursor;
          store.addPage(page.items);
          store.publish();
          setState({ kind: 'idle', hasMore: page.nextCursor !== null });
        },
        (error: Error) => {
          busy.current = false;
          if (current === generation.current) setState({ kind: 'error', error });
        },
      );
    },
    [client, store, filters],
  );

  useEffect(() => {
    generation.current += 1;
    busy.current = false;
    cursor.current = null;
    store.reset(filters);
    load(true);
  }, [filters, store, load]);

  const loadMore = useCallback(() => {
    if (cursor.current !== null) load(false);
  }, [load]);

  return { ...state, loadMore, retry: () => load(true) };
}
