import type { BurstLimits } from '../../../proxy/contracts/config.ts';
import { useApi } from '../api/ApiContext.tsx';
import { editedNumbers, type NumberDraft, NumberField, SettingForm, useSetting } from '../common/SettingForm.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { SubmitButton } from '../common/BusyButton.tsx';

const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
const describe = (limits: BurstLimits): string =>
  `A client is paused past ${counted(limits.maxRequestsPerMinute, 'request')} or ${counted(limits.maxCreditsPerMinute, 'credit')} within a minute.`;

/** The burst guard's limits per client token: what pauses a runaway agent, editable where its pauses show. */
export function BurstLimitsForm() {
  const api = useApi();
  const setting = useSetting<BurstLimits, NumberDraft<keyof BurstLimits>>(() => api.burstLimits(), 'burst-limits');
  const { saved, draft, setDraft } = setting;

  if (saved.kind === 'loading') return <Loading what="burst limits" />;
  if (saved.kind === 'error') return <ErrorState error={saved.error} onRetry={saved.reload} />;
  const shown = (field: keyof BurstLimits): string => draft?.[field] ?? String(saved.value[field]);
  const edit = (field: keyof BurstLimits) => (text: string) => setDraft({ ...draft, [field]: text });

  const save = () =>
    setting.save(
      () => api.saveBurstLimits(editedNumbers(draft)),
      (limits) => `Saved. ${describe(limits)}`,
    );

  return (
    <SettingForm
      name="burst-limits"
      title="Burst guard"
      description={`${describe(saved.value)} It stays paused until you resume it above; the running proxy applies a change to its next request.`}
      onSubmit={() => draft !== null && void save()}
      error={setting.error}
      errorField={setting.errorField}
      status={setting.status}
    >
      <NumberField
        label="Requests per minute"
        field="maxRequestsPerMinute"
        value={shown('maxRequestsPerMinute')}
        onChange={edit('maxRequestsPerMinute')}
      />
      <NumberField
        label="Credits per minute"
        field="maxCreditsPerMinute"
        decimal
        value={shown('maxCreditsPerMinute')}
        onChange={edit('maxCreditsPerMinute')}
      />
      <SubmitButton busy={setting.busy} nothingToDo={draft === null}>
        Save limits
      </SubmitButton>
    </SettingForm>
  );
}
