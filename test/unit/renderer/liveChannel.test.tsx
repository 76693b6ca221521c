// @vitest-environment happy-dom
import { cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LiveFrame } from '../../../proxy/contracts/liveEvents.ts';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import type { ControlClient, LiveSubscription } from '../../../renderer/src/api/client.ts';
import { LiveStore } from '../../../renderer/src/live/liveStore.ts';
import { useLiveChannel } from '../../../renderer/src/live/useLiveChannel.ts';

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
