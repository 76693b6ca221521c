import { useState } from 'react';
import type { MoneyAmount } from '../../../proxy/contracts/status.ts';
import type { SpendRange } from '../../../proxy/contracts/spend.ts';
import { useApi } from '../api/ApiContext.tsx';
import { formatCredits, formatMoney } from '../common/format.ts';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { ExportButtons } from '../export/ExportButtons.tsx';
import { GatewayChargeByDay } from './GatewayCharges.tsx';
import { SpendChart } from './SpendChart.tsx';
import { BudgetList, SpendTable } from './SpendTables.tsx';
import { TopUpEstimate } from './TopUpEstimate.tsx';

const RANGES: { value: SpendRange; label: string }[] = [
  { value: 'today', label: 'Today' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
];

function TotalCard({ title, amount }: { title: string; amount: MoneyAmount }) {
  return (
    <div className="card total">
      <h3>{title}</h3>
      <p className="big">{formatCredits(amount.credits)} credits</p>
      <p className="muted">
        {formatMoney(amount.cny, 'CNY')} · ≈{formatMoney(amount.usdApprox, 'USD')}
      </p>
    </div>
  );
}

/**
 * `spentTodayCredits`: today's total in the status the proxy pushes. The screen kept the figures it
 * first read, so after a restart, or an hour of an agent's work, it showed less spent than the status
 * bar beside it, as if current. It reads them again when the window gets Airlock back (requests may
 * have run meanwhile), and says when today's total in the status is not the one it read. It does not read them
 * again for each priced request: the read runs on the proxy's forwarding thread, and over 30 days of
 * a 100,000-row log it took 1.9 s (a probe on two busy cores, 2026-11-29).
 */
export function SpendScreen({ spentTodayCredits }: { spentTodayCredits: number | null }) {
  const api = useApi();
  const [range, setRange] = useState<SpendRange>('today');
  // Read again, once, when the window gets Airlock back; the figures shown stay until the new ones come.
  const spend = useAsync(() => api.spend(range), range, { readAgainWhenBack: true });
  // Both sum the log from the start of the local day (control/status.ts, control/spend.ts): a status
  // that differs has seen requests end since the figures were read.
  const behind = spend.kind === 'ready' && spentTodayCredits !== null && spentTodayCredits !== spend.value.totals.today.credits;

  return (
    <div className="screen spend">
      <header className="screen-header">
        <h2>Spend</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: a toggle of three buttons in a header, not a form: a fieldset would add a form group and its legend */}
        <div role="group" aria-label="Range" className="segmented">
          {RANGES.map((option) => (
            <button key={option.value} type="button" aria-pressed={range === option.value} onClick={() => setRange(option.value)}>
              {option.label}
            </button>
          ))}
        </div>
        <button type="button" onClick={spend.reload}>
          Refresh
        </button>
        <ExportButtons kind="spend" range={range} />
      </header>
      {spend.kind === 'loading' && <Loading what="spend" />}
      {spend.kind === 'error' && <ErrorState error={spend.error} onRetry={spend.reload} />}
      {behind && (
        <p className="warn" role="status">
          These figures are behind: today's spend is now {formatCredits(spentTodayCredits)} credits. Refresh to read them again.
        </p>
      )}
      {spend.kind === 'ready' && (
        <>
          <div className="cards">
            <TotalCard title="Today" amount={spend.value.totals.today} />
            <TotalCard title="Last 7 days" amount={spend.value.totals.last7Days} />
            <TotalCard title="Last 30 days" amount={spend.value.totals.last30Days} />
          </div>
          <p className="muted">USD is approximate (card reference rate); credits are the gateway's own unit.</p>
          {spend.value.range === 'today' ? (
            <SpendChart days={spend.value.perHour} label="Credits per hour today, by model" />
          ) : (
            <SpendChart days={spend.value.perDay} label="Credits per day by model" />
          )}
          <GatewayChargeByDay days={spend.value.perDay} />
          <div className="tables">
            <SpendTable title="Per model" keyLabel="Model" rows={spend.value.perModel} />
            <SpendTable title="Per client" keyLabel="Client" rows={spend.value.perClient} />
            <SpendTable title="Per profile" keyLabel="Profile" rows={spend.value.perProfile} />
            <SpendTable title="Per agent session" keyLabel="Session" rows={spend.value.perSession} />
          </div>
          <BudgetList budgets={spend.value.budgets} />
          <TopUpEstimate rates={spend.value.rates} />
        </>
      )}
    </div>
  );
}
