import { useEffect, useState } from 'react';
import type { LiveFrame } from '../../../proxy/contracts/liveEvents.ts';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import type { ControlClient } from '../api/client.ts';
import type { LiveStore } from './liveStore.ts';

export interface LiveChannelState {
  connected: boolean;
  /** The latest status pushed by the proxy, or fetched at start. */
  status: StatusResponse | null;
}

/**
 * One live subscription for the whole window. Frames are queued and applied together on the next
 * animation frame, so twenty streams cause one render per frame, not one per token.
 */
export function useLiveChannel(
  client: ControlClient,
  store: LiveStore,
  enabled: boolean,
): LiveChannelState & { refreshStatus: () => void } {
  const [connected, setConnected] = useState(false);
  const [status, setStatus] = useState<StatusResponse | null>(null);

  const refreshStatus = () => {
    client.status().then(setStatus, () => setConnected(false));
  };

  useEffect(() => {
    if (!enabled) return undefined;
    let pending: LiveFrame[] = [];
    let scheduled = 0;
    const flush = () => {
      scheduled = 0;
      const frames = pending;
      pending = [];
      let latestStatus: StatusResponse | null = null;
      for (const frame of frames) {
        store.applyFrame(frame);
        if (frame.status) latestStatus = frame.status;
      }
      store.publish();
      if (latestStatus) setStatus(latestStatus);
    };
    const unsubscribe = client.subscribeLive({
      onFrame: (frame) => {
        pending.push(frame);
        if (scheduled === 0) scheduled = requestAnimationFrame(flush);
      },
      onConnectionChange: (isConnected) => {
        setConnected(isConnected);
        if (isConnected) client.status().then(setStatus, () => undefined);
      },
    });
    return () => {
      unsubscribe();
      if (scheduled !== 0) cancelAnimationFrame(scheduled);
    };
  }, [client, store, enabled]);

  return { connected, status, refreshStatus };
}
