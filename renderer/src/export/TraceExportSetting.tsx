import type { TraceExportView } from '../../../proxy/contracts/export.ts';
import { useApi } from '../api/ApiContext.tsx';
import { refusalMessageId, SettingForm, useSetting } from '../common/SettingForm.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { TraceExportHeaders } from './TraceExportHeaders.tsx';
import { BusyButton, SubmitButton } from '../common/BusyButton.tsx';

/** The OTLP endpoint for OpenTelemetry traces (one span per request, no bodies, off while empty) and its headers. */
export function TraceExportSetting() {
  const api = useApi();
  const setting = useSetting<TraceExportView, string>(() => api.traceExport(), 'trace-export');
  const { saved, draft, setDraft } = setting;

  if (saved.kind === 'loading') return <Loading what="trace export" />;
  if (saved.kind === 'error') return <ErrorState error={saved.error} onRetry={saved.reload} />;
  const endpoint = draft ?? saved.value.otlpEndpoint ?? '';

  const save = (value: string) =>
    setting.save(
      // The proxy checks the URL and names what is wrong; a blank field turns the export off.
      () => api.saveTraceExport({ otlpEndpoint: value.trim() === '' ? null : value.trim() }),
      (result) => (result.otlpEndpoint ? `Saved. Spans go to ${result.otlpEndpoint} from the next request on.` : 'Trace export is off.'),
    );

  return (
    <>
      <SettingForm
        name="trace-export"
        title="Trace export"
        description="Sends one OpenTelemetry span per request (model, tokens, status, duration; never prompts, answers or keys) to an OTLP/HTTP collector such as http://127.0.0.1:4318. Off while empty."
        onSubmit={() => draft !== null && void save(endpoint)}
        error={setting.error}
        status={setting.status}
      >
        <label>
          OTLP endpoint
          {/* The form's one field: a refusal is always about it. */}
          <input
            type="url"
            placeholder="http://127.0.0.1:4318"
            value={endpoint}
            aria-invalid={setting.error ? true : undefined}
            aria-describedby={setting.error ? refusalMessageId('trace-export') : undefined}
            onChange={(event) => setDraft(event.target.value)}
          />
        </label>
        <SubmitButton busy={setting.busy} nothingToDo={draft === null}>
          Save endpoint
        </SubmitButton>
        {saved.value.otlpEndpoint && (
          <BusyButton busy={setting.busy} onPress={() => void save('')}>
            Turn off
          </BusyButton>
        )}
      </SettingForm>
      <TraceExportHeaders view={saved.value} onChanged={saved.reload} />
    </>
  );
}
