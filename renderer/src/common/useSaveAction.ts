import { useState } from 'react';
import { ControlApiError } from '../api/client.ts';

/** A field's text refused before anything is sent, named by the request field as the proxy names one it refuses. */
export class FieldError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'FieldError';
    this.field = field;
  }
}

/**
 * A form's save: busy while it runs, its error (the proxy's message, which names the field) and the
 * field it is about, or the status line it returns (null for none), each cleared when the next save starts.
 */
export function useSaveAction(): {
  busy: boolean;
  error: string | null;
  /** The request field the proxy refused (`maxRequestsPerMinute`), when it named one. */
  errorField: string | null;
  status: string | null;
  run(save: () => Promise<string | null>): Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [errorField, setErrorField] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const run = async (save: () => Promise<string | null>): Promise<void> => {
    // Its buttons are marked busy, not disabled (BusyButton): a press meanwhile is ignored here.
    if (busy) return;
    setBusy(true);
    setError(null);
    setErrorField(null);
    setStatus(null);
    try {
      setStatus(await save());
    } catch (caught) {
      setError((caught as Error).message);
      setErrorField(caught instanceof ControlApiError || caught instanceof FieldError ? (caught.field ?? null) : null);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, errorField, status, run };
}
