import { useEffect, useState } from 'react';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import type { RequestState } from '../../../proxy/contracts/log.ts';
import { ControlApiError, type ControlClient } from '../api/client.ts';

export type DetailState = { kind: 'loading' } | { kind: 'error'; error: Error } | { kind: 'ready'; detail: RequestDetail };

/** The log writes in batches, so a request that just ended may be missing for a moment. */
const NOT_YET_LOGGED_RETRIES = 8;
const NOT_YET_LOGGED_WAIT_MS = 250;

/** Loads a request's detail, again whenever its live state changes (e.g. it finished). */
export function useRequestDetail(client: ControlClient, id: string, liveState: RequestState | undefined): DetailState {
  const [state, setState] = useState<DetailState>({ kind: 'loading' });

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = (remaining: number) => {
      client.request(id).then(
        (detail) => {
          if (!cancelled) setState({ kind: 'ready', detail });
        },
        (error: Error) => {
          if (cancelled) return;
          if (error instanceof ControlApiError && error.code === 'not_found' && remaining > 0) {
            timer = setTimeout(() => attempt(remaining - 1), NOT_YET_LOGGED_WAIT_MS);
          } else if (liveState !== 'in_flight') setState({ kind: 'error', error });
        },
      );
    };
    setState((previous) => (previous.kind === 'ready' && previous.detail.id === id ? previous : { kind: 'loading' }));
    attempt(liveState === 'in_flight' ? 0 : NOT_YET_LOGGED_RETRIES);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [client, id, liveState]);

  return state;
}
