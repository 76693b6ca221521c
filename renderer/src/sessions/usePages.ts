import { useCallback, useEffect, useRef, useState } from 'react';
import { useWhenBack } from '../common/useWhenBack.ts';

export interface Pages<P, T> {
  /** The first page as loaded (its heading fields: a session's figures). */
  first: P | null;
  items: T[];
  error: Error | null;
  loading: boolean;
  hasMore: boolean;
  /** Loads the next page unless one is loading or there is none. */
  loadMore: () => void;
  reload: () => void;
}

/**
 * Pages loaded one after another by cursor and kept in order; a new `key` starts over. A page
 * that arrives after the key changed is dropped. When the proxy is back, a failed load runs again,
 * and with `readAgainWhenBack` (pages of figures summed from the log) the first page is read again, once.
 */
export function usePages<P extends { nextCursor: string | null }, T>(
  load: (cursor: string | null) => Promise<P>,
  itemsOf: (page: P) => T[],
  key: string,
  options: { readAgainWhenBack?: boolean } = {},
): Pages<P, T> {
  const [state, setState] = useState<{ first: P | null; items: T[]; cursor: string | null; error: Error | null; loading: boolean }>({
    first: null,
    items: [],
    cursor: null,
    error: null,
    loading: true,
  });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const itemsRef = useRef(itemsOf);
  itemsRef.current = itemsOf;
  const busy = useRef(false);

  const fetchPage = useCallback((cursor: string | null, reset: boolean) => {
    const current = reset ? ++generation.current : generation.current;
    busy.current = true;
    setState((previous) => ({ ...previous, loading: true, error: null }));
    loadRef.current(cursor).then(
      (page) => {
        if (current !== generation.current) return;
        busy.current = false;
        setState((previous) => ({
          first: reset ? page : (previous.first ?? page),
          items: reset ? itemsRef.current(page) : [...previous.items, ...itemsRef.current(page)],
          cursor: page.nextCursor,
          error: null,
          loading: false,
        }));
      },
      (error: unknown) => {
        if (current !== generation.current) return;
        busy.current = false;
        setState((previous) => ({ ...previous, loading: false, error: error instanceof Error ? error : new Error(String(error)) }));
      },
    );
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is not read; a new key is what starts over
  useEffect(() => {
    fetchPage(null, true);
  }, [key, fetchPage]);

  const reload = useCallback(() => fetchPage(null, true), [fetchPage]);
  const failed = state.error !== null;
  const readAgainWhenBack = options.readAgainWhenBack === true;
  useWhenBack((returned) => {
    if (failed || (readAgainWhenBack && returned)) reload();
  });

  const cursor = state.cursor;
  const loadMore = useCallback(() => {
    if (!busy.current && cursor !== null) fetchPage(cursor, false);
  }, [cursor, fetchPage]);

  return { ...state, hasMore: state.cursor !== null, loadMore, reload };
}
