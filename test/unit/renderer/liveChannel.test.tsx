// @vitest-environment happy-dom
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IN_FLIGHT_SUMMARY_DEFAULTS, type LiveFrame } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestPage, RequestSummary } from '../../../proxy/contracts/requests.ts';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import type { ControlClient, LiveSubscription } from '../../../renderer/src/api/client.ts';
import { ReconnectContext } from '../../../renderer/src/common/ScreenBoundary.tsx';
import { LiveStore } from '../../../renderer/src/live/liveStore.ts';
import { useLiveChannel } from '../../../renderer/src/live/useLiveChannel.ts';
import { useRequestPages } from '../../../renderer/src/live/useRequestPages.ts';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/**
 * A hidden window: Airlock's window hides to the tray when closed, and browsers pause animation
 * frames while a page is hidden (https://gsap.com/docs/v3/HelperFunctions/helpers/tickGSAPWhileHidden).
 * Frames queued for the next animation frame piled up there for as long as it stayed hidden.
 */
describe('the live channel of a hidden window', () => {
  it('applies frames as they come, so nothing piles up until the window paints again', () => {
    const painters: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (paint: FrameRequestCallback) => painters.push(paint));
    vi.stubGlobal('cancelAnimationFrame', () => undefined);
    let subscription: LiveSubscription | null = null;
    const client = {
      subscribeLive: (subscribed: LiveSubscription) => {
        subscription = subscribed;
        return () => undefined;
      },
      status: () => new Promise<StatusResponse>(() => undefined),
    } as unknown as ControlClient;
    const store = new LiveStore();
    renderHook(() => useLiveChannel(client, store, true, () => undefined));

    for (let index = 0; index < 1_000; index += 1) {
      const frame: LiveFrame = {
        requests: [{ requestId: 'a', fields: index === 0 ? { startedAtMs: 1, state: 'in_flight' } : {}, appendText: `${index},` }],
        status: null,
      };
      subscription!.onFrame(frame);
    }
    expect(painters).toHaveLength(1);
    store.publish();
    expect(store.getSnapshot().rows.get('a')?.text.endsWith('999,')).toBe(true);
  });
});

const inFlight = (id: string, startedAtMs: number): RequestSummary => ({
  ...IN_FLIGHT_SUMMARY_DEFAULTS,
  id,
  startedAtMs,
  stream: true,
  status: 200,
});

/** A proxy with one stream running: its live channel driven by the test, its log listing the stream in flight. */
function proxyWithOneStream() {
  let subscription: LiveSubscription | null = null;
  const pageLoads: Promise<RequestPage>[] = [];
  const client = {
    subscribeLive: (subscribed: LiveSubscription) => {
      subscription = subscribed;
      return () => undefined;
    },
    status: () => new Promise<StatusResponse>(() => undefined),
    listRequests: () => {
      const page = Promise.resolve<RequestPage>({ items: [inFlight('a', 1)], nextCursor: null });
      pageLoads.push(page);
      return page;
    },
  } as unknown as ControlClient;
  const channel = () => subscription as unknown as LiveSubscription;
  return { client, channel, pageLoads };
}

/** What the proxy sends first on every connection: each request in flight in full, its stream's tail so far. */
const firstFrame = (text: string): LiveFrame => ({
  requests: [{ requestId: 'a', fields: inFlight('a', 1), appendText: text }],
  status: null,
});
const delta = (text: string): LiveFrame => ({ requests: [{ requestId: 'a', fields: {}, appendText: text }], status: null });

describe('a running row when the live channel comes back', () => {
  // The list starts over from the log once React has seen the channel come back, which may be after
  // the new connection's first frame: that frame went to the old row, the reset dropped it, and the
  // row showed only the text that came after it, until it ended.
  it('keeps the text of the first frame when it comes before the list starts over', async () => {
    vi.stubGlobal('requestAnimationFrame', () => 1);
    vi.stubGlobal('cancelAnimationFrame', () => undefined);
    const proxy = proxyWithOneStream();
    const store = new LiveStore();
    const filters = {};
    let reconnects = 1;
    const { rerender } = renderHook(
      () => {
        useLiveChannel(proxy.client, store, true, () => undefined);
        useRequestPages(proxy.client, store, filters);
      },
      {
        wrapper: ({ children }: { children: ReactNode }) => (
          <ReconnectContext.Provider value={reconnects}>{children}</ReconnectContext.Provider>
        ),
      },
    );
    proxy.channel().onConnectionChange?.(true);
    proxy.channel().onFrame(firstFrame('Hello'));
    await proxy.pageLoads[0];
    proxy.channel().onFrame(delta(', wor'));

    proxy.channel().onConnectionChange?.(false);
    proxy.channel().onConnectionChange?.(true);
    proxy.channel().onFrame(firstFrame('Hello, world'));
    reconnects = 2;
    rerender();
    await waitFor(() => expect(store.getSnapshot().rows.get('a')).toBeDefined());
    proxy.channel().onFrame(delta('!'));
    store.publish();
    expect(store.getSnapshot().rows.get('a')).toMatchObject({ state: 'in_flight', text: 'Hello, world!' });
  });

  // Leaving the Live screen and coming back starts the list over from the log too.
  it('keeps a running row’s text when the Live screen is opened again', async () => {
    const proxy = proxyWithOneStream();
    const store = new LiveStore();
    const filters = {};
    const first = renderHook(() => useRequestPages(proxy.client, store, filters));
    store.applyFrame(firstFrame('Hello'));
    await waitFor(() => expect(proxy.pageLoads).toHaveLength(1));
    await proxy.pageLoads[0];
    store.applyFrame(delta(', world'));
    first.unmount();

    renderHook(() => useRequestPages(proxy.client, store, filters));
    await waitFor(() => expect(store.getSnapshot().rows.get('a')).toBeDefined());
    store.applyFrame(delta('!'));
    store.publish();
    expect(store.getSnapshot().rows.get('a')).toMatchObject({ state: 'in_flight', text: 'Hello, world!' });
  });
});
