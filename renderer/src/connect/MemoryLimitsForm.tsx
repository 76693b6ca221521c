import type { MemoryLimits } from '../../../proxy/contracts/config.ts';
import { useApi } from '../api/ApiContext.tsx';
import { NumberField, SettingForm, useSetting } from '../common/SettingForm.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';

const describe = (limits: MemoryLimits): string =>
  `The log keeps each body up to ${limits.bodyCaptureKiB} KiB, and holds at most ${limits.logBacklogMiB} MiB of work it has not written yet.`;

/** What the request log may hold in memory: each body it keeps, and the work a saturating load leaves it behind on. */
export function MemoryLimitsForm() {
  const api = useApi();
  const setting = useSetting<MemoryLimits, { backlog: string; capture: string }>(() => api.memoryLimits(), 'memory-limits');
  const { saved, draft, setDraft } = setting;

  if (saved.kind === 'loading') return <Loading what="memory limits" />;
  if (saved.kind === 'error') return <ErrorState error={saved.error} onRetry={saved.reload} />;
  const fields = draft ?? { backlog: String(saved.value.logBacklogMiB), capture: String(saved.value.bodyCaptureKiB) };

  const save = () =>
    setting.save(async () => {
      // Number('') is 0 and the proxy refuses it with a message naming the field and its range.
      const limits = await api.saveMemoryLimits({ logBacklogMiB: Number(fields.backlog), bodyCaptureKiB: Number(fields.capture) });
      return `Saved. ${describe(limits)}`;
    });

  return (
    <SettingForm
      name="memory-limits"
      title="Memory"
      description={`${describe(saved.value)} Under a load that takes every core the log falls behind: past half of that, bodies are not kept; past all of it, requests are counted in spend summaries until it catches up. Applies to the next request.`}
      onSubmit={() => void save()}
      error={setting.error}
      errorField={setting.errorField}
      status={setting.status}
    >
      <NumberField
        label="Log backlog (MiB, 8 to 1024)"
        field="logBacklogMiB"
        min={8}
        max={1024}
        value={fields.backlog}
        onChange={(backlog) => setDraft({ ...fields, backlog })}
      />
      <NumberField
        label="Body kept per request (KiB, 16 to 16384)"
        field="bodyCaptureKiB"
        min={16}
        max={16384}
        value={fields.capture}
        onChange={(capture) => setDraft({ ...fields, capture })}
      />
      <button type="submit" disabled={setting.busy || draft === null}>
        Save memory limits
      </button>
    </SettingForm>
  );
}
