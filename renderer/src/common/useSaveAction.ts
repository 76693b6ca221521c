import { useState } from 'react';

/**
 * A form's save: busy while it runs, its error (the proxy's message, which names the field) or the
 * status line it returns (null for none), each cleared when the next save starts.
 */
export function useSaveAction(): {
  busy: boolean;
  error: string | null;
  status: string | null;
  run(save: () => Promise<string | null>): Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const run = async (save: () => Promise<string | null>): Promise<void> => {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      setStatus(await save());
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, status, run };
}
