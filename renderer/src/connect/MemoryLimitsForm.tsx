import { useState } from 'react';
import type { MemoryLimits } from '../../../proxy/contracts/api.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ErrorState, FormError, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { useSaveAction } from '../common/useSaveAction.ts';

const describe = (limits: MemoryLimits): string =>
  `The log keeps each body up to ${limits.bodyCaptureKiB} KiB, and holds at most ${limits.logBacklogMiB} MiB of work it has not written yet.`;

/** What the request log may hold in memory: each body it keeps, and the work a saturating load leaves it behind on. */
export function MemoryLimitsForm() {
  const api = useApi();
  const saved = useAsync(() => api.memoryLimits(), 'memory-limits');
  const [draft, setDraft] = useState<{ backlog: string; capture: string } | null>(null);
  const { busy, error, status, run } = useSaveAction();

  if (saved.kind === 'loading') return <Loading what="memory limits" />;
  if (saved.kind === 'error') return <ErrorState error={saved.error} onRetry={saved.reload} />;
  const fields = draft ?? { backlog: String(saved.value.logBacklogMiB), capture: String(saved.value.bodyCaptureKiB) };

  const save = async () => {
    await run(async () => {
      // Number('') is 0 and the proxy refuses it with a message naming the field and its range.
      const limits = await api.saveMemoryLimits({ logBacklogMiB: Number(fields.backlog), bodyCaptureKiB: Number(fields.capture) });
      setDraft(null);
      saved.reload();
      return `Saved. ${describe(limits)}`;
    });
  };

  return (
    <section className="memory-limits" aria-labelledby="memory-limits-title">
      <h3 id="memory-limits-title">Memory</h3>
      <p className="muted">
        {describe(saved.value)} Under a load that takes every core the log falls behind: past half of that, bodies are not kept; past all of
        it, requests are counted in spend summaries until it catches up. Applies to the next request.
      </p>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label>
          Log backlog (MiB, 8 to 1024)
          <input
            type="number"
            min={8}
            max={1024}
            step={1}
            inputMode="numeric"
            value={fields.backlog}
            onChange={(event) => setDraft({ ...fields, backlog: event.target.value })}
          />
        </label>
        <label>
          Body kept per request (KiB, 16 to 16384)
          <input
            type="number"
            min={16}
            max={16384}
            step={1}
            inputMode="numeric"
            value={fields.capture}
            onChange={(event) => setDraft({ ...fields, capture: event.target.value })}
          />
        </label>
        <button type="submit" disabled={busy || draft === null}>
          Save memory limits
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
