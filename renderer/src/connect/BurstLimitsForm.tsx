import { useState } from 'react';
import type { BurstLimits } from '../../../proxy/contracts/api.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ErrorState, FormError, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { useSaveAction } from '../common/useSaveAction.ts';

const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
const describe = (limits: BurstLimits): string =>
  `A client is paused past ${counted(limits.maxRequestsPerMinute, 'request')} or ${counted(limits.maxCreditsPerMinute, 'credit')} within a minute.`;

/** The burst guard's limits per client token: what pauses a runaway agent, editable where its pauses show. */
export function BurstLimitsForm() {
  const api = useApi();
  const saved = useAsync(() => api.burstLimits(), 'burst-limits');
  const [draft, setDraft] = useState<{ requests: string; credits: string } | null>(null);
  const { busy, error, status, run } = useSaveAction();

  if (saved.kind === 'loading') return <Loading what="burst limits" />;
  if (saved.kind === 'error') return <ErrorState error={saved.error} onRetry={saved.reload} />;
  const fields = draft ?? { requests: String(saved.value.maxRequestsPerMinute), credits: String(saved.value.maxCreditsPerMinute) };

  const save = async () => {
    await run(async () => {
      // Number('') is 0 and the proxy refuses it with a message, like any other bad value.
      const limits = await api.saveBurstLimits({
        maxRequestsPerMinute: Number(fields.requests),
        maxCreditsPerMinute: Number(fields.credits),
      });
      setDraft(null);
      saved.reload();
      return `Saved. ${describe(limits)}`;
    });
  };

  return (
    <section className="burst-limits" aria-labelledby="burst-limits-title">
      <h3 id="burst-limits-title">Burst guard</h3>
      <p className="muted">
        {describe(saved.value)} It stays paused until you resume it above; the running proxy applies a change to its next request.
      </p>
      {/* The proxy's refusal names the field and the rule; the browser's own check would block it unseen. */}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label>
          Requests per minute
          <input
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={fields.requests}
            onChange={(event) => setDraft({ ...fields, requests: event.target.value })}
          />
        </label>
        <label>
          Credits per minute
          <input
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={fields.credits}
            onChange={(event) => setDraft({ ...fields, credits: event.target.value })}
          />
        </label>
        <button type="submit" disabled={busy || draft === null}>
          Save limits
        </button>
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
