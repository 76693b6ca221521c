import { useEffect, useRef, useState } from 'react';

/**
 * `value`, taken at once after a quiet `intervalMs` and otherwise at most once per `intervalMs`
 * (the latest one): a figure that moves with every request asks for a reload now, not per request.
 */
export function useThrottled<T>(value: T, intervalMs: number): T {
  const [taken, setTaken] = useState(value);
  const takenAtMs = useRef(Number.NEGATIVE_INFINITY);
  useEffect(() => {
    if (Object.is(value, taken)) return undefined;
    const take = () => {
      takenAtMs.current = Date.now();
      setTaken(value);
    };
    const waitMs = takenAtMs.current + intervalMs - Date.now();
    if (waitMs <= 0) {
      take();
      return undefined;
    }
    const timer = setTimeout(take, waitMs);
    return () => clearTimeout(timer);
  }, [value, taken, intervalMs]);
  return taken;
}
