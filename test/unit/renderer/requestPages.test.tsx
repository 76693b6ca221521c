// @vitest-environment happy-dom
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { IN_FLIGHT_SUMMARY_DEFAULTS } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestPage, RequestSummary } from '../../../proxy/contracts/requests.ts';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { ReconnectContext } from '../../../renderer/src/common/ScreenBoundary.tsx';
import { LiveStore } from '../../../renderer/src/live/liveStore.ts';
import { useRequestPages } from '../../../renderer/src/live/useRequestPages.ts';

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
