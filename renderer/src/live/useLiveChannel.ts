import { useEffect, useRef, useState } from 'react';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import type { ControlClient } from '../api/client.ts';
import type { LiveStore } from './liveStore.ts';

export interface LiveChannelState {
  connected: boolean;
  /** The latest status pushed by the proxy, or fetched at start. */
  status: StatusResponse | null;
}

/**
 * One live subscription for the whole window. Frames are applied to the store as they come and
 * published together on the next animation frame, so twenty streams cause one render per frame,
 * not one per token. `onSignedOut` runs when the proxy refuses the window's session, which no
 * reconnecting brings back.
 */
export function useLiveChannel(
  client: ControlClient,
  store: LiveStore,
  enabled: boolean,
  onSignedOut: () => void,
): LiveChannelState & { refreshStatus: () => void } {
  const [connected, setConnected] = useState(false);
  const [status, setStatus] = useState<StatusResponse | null>(null);
  const signedOutRef = useRef(onSignedOut);
  signedOutRef.current = onSignedOut;

  const refreshStatus = () => {
    client.status().then(setStatus, () => setConnected(false));
  };

  useEffect(() => {
    if (!enabled) return undefined;
    // Applied as they come (the store keeps a row's latest state and a stream's tail, so it stays
    // bounded) and shown at the next animation frame: a hidden window gets none, and frames queued
    // for it piled up for as long as it stayed hidden.
    let latestStatus: StatusResponse | null = null;
    let scheduled = 0;
    const paint = () => {
      scheduled = 0;
      store.publish();
      if (latestStatus) setStatus(latestStatus);
      latestStatus = null;
    };
    const unsubscribe = client.subscribeLive({
      onFrame: (frame) => {
        store.applyFrame(frame);
        if (frame.status) latestStatus = frame.status;
        if (scheduled === 0) scheduled = requestAnimationFrame(paint);
      },
      onConnectionChange: (isConnected) => {
        // Here, before the connection's first frame, not in an effect of the render it causes.
        if (isConnected) store.channelConnected();
        setConnected(isConnected);
        if (isConnected) client.status().then(setStatus, () => undefined);
      },
      onSignedOut: () => signedOutRef.current(),
    });
    return () => {
      unsubscribe();
      if (scheduled !== 0) cancelAnimationFrame(scheduled);
    };
  }, [client, store, enabled]);

  return { connected, status, refreshStatus };
}
