import { useState } from 'react';
import type { TraceExportHeaderView, TraceExportView } from '../../../proxy/contracts/export.ts';
import { normalizeTraceHeaderName } from '../../../proxy/contracts/traceHeaders.ts';
import { useApi } from '../api/ApiContext.tsx';
import { FormError } from '../common/StateViews.tsx';
import { useSaveAction } from '../common/useSaveAction.ts';
import { BusyButton, SubmitButton } from '../common/BusyButton.tsx';

const secretInput = { type: 'password', autoComplete: 'off', spellCheck: false } as const;

function describeValue(header: TraceExportHeaderView): string {
  if (!header.set) return 'no value in the keychain: set it again';
  return header.lastFour ? `ends in …${header.lastFour}` : 'set (too short to show its end)';
}

function HeaderRow({
  header,
  busy,
  onReplace,
  onRemove,
}: {
  header: TraceExportHeaderView;
  busy: boolean;
  onReplace(value: string): void;
  onRemove(): void;
}) {
  const [value, setValue] = useState('');
  return (
    <li className="trace-header" data-testid={`trace-header-${header.name}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (busy || value.trim() === '') return;
          onReplace(value);
          // A typed secret is not kept in the page once sent.
          setValue('');
        }}
      >
        <span className="trace-header-name">
          <code>{header.name}</code>
          <span className="muted">{describeValue(header)}</span>
        </span>
        <label>
          New value for {header.name}
          <input {...secretInput} value={value} onChange={(event) => setValue(event.target.value)} />
        </label>
        <SubmitButton busy={busy} nothingToDo={value.trim() === ''}>
          Save value
        </SubmitButton>
        <BusyButton busy={busy} aria-label={`Remove header ${header.name}`} onPress={onRemove}>
          Remove
        </BusyButton>
      </form>
    </li>
  );
}

/**
 * The headers a hosted collector needs with each export (its API key). A value is typed once and
 * goes to the keychain; only the name and its last four characters come back.
 */
export function TraceExportHeaders({ view, onChanged }: { view: TraceExportView; onChanged(): void }) {
  const api = useApi();
  const action = useSaveAction();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');

  const change = (send: () => Promise<TraceExportView>, done: (result: TraceExportView) => string) =>
    action.run(async () => {
      const result = await send();
      onChanged();
      return done(result);
    });
  const applies = view.otlpEndpoint ? ' It goes with the spans of the next request on.' : '';

  return (
    <section className="trace-export-headers" aria-labelledby="trace-export-headers-title">
      <h4 id="trace-export-headers-title">Collector headers</h4>
      <p className="muted">
        For a hosted collector that wants an API key with each export, e.g. x-honeycomb-team (Honeycomb), Authorization (Grafana Cloud,
        “Basic …”), api-key (New Relic), dd-api-key (Datadog). Values are kept in the OS keychain and never shown again.
      </p>
      {view.headersProblem && (
        <p className="field-error" role="alert">
          {view.headersProblem}
        </p>
      )}
      {view.headers.length > 0 && (
        <ul data-testid="trace-headers">
          {view.headers.map((header) => (
            <HeaderRow
              key={header.name}
              header={header}
              busy={action.busy}
              onReplace={(newValue) =>
                void change(
                  () => api.setTraceExportHeader({ name: header.name, value: newValue }),
                  () => `Saved a new value for ${header.name}.${applies}`,
                )
              }
              onRemove={() =>
                void change(
                  () => api.removeTraceExportHeader(header.name),
                  () => `Removed ${header.name}.${applies}`,
                )
              }
            />
          ))}
        </ul>
      )}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (action.busy || name.trim() === '' || value.trim() === '') return;
          // The proxy checks the name and the value and says what is wrong, never quoting the value.
          void change(
            () => api.setTraceExportHeader({ name, value }),
            (result) => {
              setName('');
              setValue('');
              const saved = normalizeTraceHeaderName(name);
              return `Saved ${result.headers.some((header) => header.name === saved) ? saved : 'the header'} in the keychain.${applies}`;
            },
          );
        }}
      >
        <label>
          Header name
          <input value={name} placeholder="x-honeycomb-team" spellCheck={false} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Header value
          <input {...secretInput} value={value} onChange={(event) => setValue(event.target.value)} />
        </label>
        <SubmitButton busy={action.busy} nothingToDo={name.trim() === '' || value.trim() === ''}>
          Add header
        </SubmitButton>
      </form>
      <FormError message={action.error} />
      {action.status && (
        <p className="ok" role="status">
          {action.status}
        </p>
      )}
    </section>
  );
}
