import { useCallback, useEffect, useRef, useState } from 'react';
import { useWhenBack } from './useWhenBack.ts';

export type AsyncState<T> = { kind: 'loading' } | { kind: 'error'; error: Error } | { kind: 'ready'; value: T };

/**
 * Runs `load` when `key` changes and exposes loading / error / ready; `reload` runs it again, and
 * `replace` shows a value the caller got otherwise (a save's answer) in place of the loaded one.
 * A result that arrives after a newer load started is dropped, so fast typing cannot show stale data.
 * A load that failed runs again when the window gets the proxy back; with `readAgainWhenBack` (figures summed
 * from the request log, which went on while the window could not hear of it) every load runs again
 * then, once, the figures shown staying until the new ones come.
 */
export function useAsync<T>(
  load: () => Promise<T>,
  key: string,
  options: { readAgainWhenBack?: boolean } = {},
): AsyncState<T> & { reload: () => void; replace: (value: T) => void } {
  const [state, setState] = useState<AsyncState<T>>({ kind: 'loading' });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback(() => {
    const current = ++generation.current;
    loadRef.current().then(
      (value) => {
        if (current === generation.current) setState({ kind: 'ready', value });
      },
      (error: unknown) => {
        if (current === generation.current) setState({ kind: 'error', error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is not read; a new key is what asks for a new load
  useEffect(() => {
    setState((previous) => (previous.kind === 'ready' ? previous : { kind: 'loading' }));
    run();
  }, [key, run]);

  const failed = state.kind === 'error';
  const readAgainWhenBack = options.readAgainWhenBack === true;
  useWhenBack((returned) => {
    if (failed || (readAgainWhenBack && returned)) run();
  });

  const replace = useCallback((value: T) => {
    // A load still under way read the value before it was replaced: its result is dropped.
    generation.current++;
    setState({ kind: 'ready', value });
  }, []);

  return { ...state, reload: run, replace };
}
