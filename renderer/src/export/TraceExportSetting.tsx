import { useState } from 'react';
import { useApi } from '../api/ApiContext.tsx';
import { ErrorState, FormError, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { useSaveAction } from '../common/useSaveAction.ts';

/** The OTLP endpoint for OpenTelemetry traces: one span per request, no bodies, off while empty. */
export function TraceExportSetting() {
  const api = useApi();
  const saved = useAsync(() => api.traceExport(), 'trace-export');
  const [draft, setDraft] = useState<string | null>(null);
  const { busy, error, status, run } = useSaveAction();

  if (saved.kind === 'loading') return <Loading what="trace export" />;
  if (saved.kind === 'error') return <ErrorState error={saved.error} onRetry={saved.reload} />;
  const endpoint = draft ?? saved.value.otlpEndpoint ?? '';

  const save = async (value: string) => {
    await run(async () => {
      // The proxy checks the URL and names what is wrong; a blank field turns the export off.
      const result = await api.saveTraceExport({ otlpEndpoint: value.trim() === '' ? null : value.trim() });
      setDraft(null);
      saved.reload();
      return result.otlpEndpoint ? `Saved. Spans go to ${result.otlpEndpoint} from the next request on.` : 'Trace export is off.';
    });
  };

  return (
    <section className="trace-export" aria-labelledby="trace-export-title">
      <h3 id="trace-export-title">Trace export</h3>
      <p className="muted">
        Sends one OpenTelemetry span per request (model, tokens, status, duration; never prompts, answers or keys) to an OTLP/HTTP collector
        such as http://127.0.0.1:4318. Off while empty.
      </p>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save(endpoint);
        }}
      >
        <label>
          OTLP endpoint
          <input type="url" placeholder="http://127.0.0.1:4318" value={endpoint} onChange={(event) => setDraft(event.target.value)} />
        </label>
        <button type="submit" disabled={busy || draft === null}>
          Save endpoint
        </button>
        {saved.value.otlpEndpoint && (
          <button type="button" disabled={busy} onClick={() => void save('')}>
            Turn off
          </button>
        )}
      </form>
      <FormError message={error} />
      {status && (
        <p className="ok" role="status">
          {status}
        </p>
      )}
    </section>
  );
}
