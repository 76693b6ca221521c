import { useContext, useEffect, useRef } from 'react';
import { ReconnectContext } from './ScreenBoundary.tsx';

/**
 * Calls `onBack` once each time the window's live channel connects while the caller is mounted.
 * `returned` is false at the window's first connection (a screen shown as the window opened has just
 * read what it shows) and true when Airlock came back after the window lost it (requests may have
 * run meanwhile, and a restarted proxy may hold other figures).
 */
export function useWhenBack(onBack: (returned: boolean) => void): void {
  const connections = useContext(ReconnectContext);
  const seen = useRef(connections);
  const latest = useRef(onBack);
  latest.current = onBack;
  useEffect(() => {
    if (seen.current === connections) return;
    const returned = seen.current > 0;
    seen.current = connections;
    latest.current(returned);
  }, [connections]);
}

/**
 * Counts the times `value` changed from one known value to another while the caller is mounted:
 * the active profile switched (from the tray too), not the status arriving at start (undefined).
 */
export function useSwitchCount(value: string | null | undefined): number {
  const last = useRef(value);
  const count = useRef(0);
  if (value !== undefined && value !== last.current) {
    if (last.current !== undefined) count.current += 1;
    last.current = value;
  }
  return count.current;
}
