import type { MemoryLimits } from '../../../proxy/contracts/config.ts';
import { useApi } from '../api/ApiContext.tsx';
import { editedNumbers, type NumberDraft, NumberField, SettingForm, useSetting } from '../common/SettingForm.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { SubmitButton } from '../common/BusyButton.tsx';

const describe = (limits: MemoryLimits): string =>
  `The log keeps each body up to ${limits.bodyCaptureKiB} KiB, and holds at most ${limits.logBacklogMiB} MiB of work it has not written yet.`;

/** What the request log may hold in memory: each body it keeps, and the work a saturating load leaves it behind on. */
export function MemoryLimitsForm() {
  const api = useApi();
  const setting = useSetting<MemoryLimits, NumberDraft<keyof MemoryLimits>>(() => api.memoryLimits(), 'memory-limits');
  const { saved, draft, setDraft } = setting;

  if (saved.kind === 'loading') return <Loading what="memory limits" />;
  if (saved.kind === 'error') return <ErrorState error={saved.error} onRetry={saved.reload} />;
  const shown = (field: keyof MemoryLimits): string => draft?.[field] ?? String(saved.value[field]);
  const edit = (field: keyof MemoryLimits) => (text: string) => setDraft({ ...draft, [field]: text });

  const save = () =>
    setting.save(
      () => api.saveMemoryLimits(editedNumbers(draft)),
      (limits) => `Saved. ${describe(limits)}`,
    );

  return (
    <SettingForm
      name="memory-limits"
      title="Memory"
      description={`${describe(saved.value)} Under a load that takes every core the log falls behind: past half of that, bodies are not kept; past all of it, requests are counted in spend summaries until it catches up. Applies to the next request.`}
      onSubmit={() => draft !== null && void save()}
      error={setting.error}
      errorField={setting.errorField}
      status={setting.status}
    >
      <NumberField
        label="Log backlog (MiB, 8 to 1024)"
        field="logBacklogMiB"
        value={shown('logBacklogMiB')}
        onChange={edit('logBacklogMiB')}
      />
      <NumberField
        label="Body kept per request (KiB, 16 to 16384)"
        field="bodyCaptureKiB"
        value={shown('bodyCaptureKiB')}
        onChange={edit('bodyCaptureKiB')}
      />
      <SubmitButton busy={setting.busy} nothingToDo={draft === null}>
        Save memory limits
      </SubmitButton>
    </SettingForm>
  );
}
