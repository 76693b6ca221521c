import { useCallback, useEffect, useState } from 'react';

export const SCREENS = ['live', 'sessions', 'spend', 'profiles', 'models', 'connect'] as const;
export type Screen = (typeof SCREENS)[number];

/** `#/spend` → 'spend', `#/live/<request id>` → 'live'; anything unknown (including the login fragment) → 'live'. */
export function screenFromHash(hash: string): Screen {
  const name = hash.replace(/^#\/?/, '').split('/')[0] ?? '';
  return (SCREENS as readonly string[]).includes(name) ? (name as Screen) : 'live';
}

/**
 * An id from the address, decoded; as typed when it is not valid percent-encoding (a link cut short,
 * a stray `%`), which decodeURIComponent throws on: the screen then says no such id exists.
 */
function idSegment(segment: string | undefined): string | null {
  if (!segment) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The request a `#/live/<request id>` address opens, or null. */
export function requestIdFromHash(hash: string): string | null {
  return idSegment(/^#\/live\/([^/?#]+)$/.exec(hash)?.[1]);
}

/** The agent session a `#/sessions/<session id>` address opens, or null (the list). */
export function sessionIdFromHash(hash: string): string | null {
  return idSegment(/^#\/sessions\/([^/?#]+)$/.exec(hash)?.[1]);
}

/** The address of one agent session, or of the list. */
export function sessionHash(sessionId: string | null): string {
  return sessionId === null ? '#/sessions' : `#/sessions/${encodeURIComponent(sessionId)}`;
}

/** The session in the address bar, following it (back, forward, a pasted link); links change it, so nothing here sets it. */
export function useSessionIdInHash(): string | null {
  const [sessionId, setSessionId] = useState(() => sessionIdFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setSessionId(sessionIdFromHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return sessionId;
}

/** The address of one request: every request has its own, to share or come back to. */
export function requestHash(requestId: string | null): string {
  return requestId === null ? '#/live' : `#/live/${encodeURIComponent(requestId)}`;
}

/** The request in the address bar, following it as it changes (back, forward, a pasted link). */
export function useRequestIdInHash(): [string | null, (requestId: string | null) => void] {
  const [requestId, setRequestId] = useState(() => requestIdFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRequestId(requestIdFromHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  // The same function at every render: each list row takes it, and a new one would render every row again at each frame.
  const select = useCallback((next: string | null) => {
    setRequestId(next);
    // Replaced, not pushed: moving through the list with the arrows must not fill the history.
    if (window.location.hash !== requestHash(next)) window.history.replaceState(null, '', requestHash(next));
  }, []);
  return [requestId, select];
}

export function useHashRoute(): Screen {
  const [screen, setScreen] = useState<Screen>(() => screenFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setScreen(screenFromHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return screen;
}
