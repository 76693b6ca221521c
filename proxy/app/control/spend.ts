import type { SpendDay, SpendRange, SpendResponse, SpendRow } from '../../contracts/spend.ts';
import type { SpendByDayRow } from '../../contracts/log.ts';
import { addGatewayCosts, joinGatewayCostProfiles } from '../../contracts/amounts.ts';
import { CNY_PER_CREDIT, TOP_UP_DISCOUNT_TIERS, USD_PER_CREDIT_APPROX } from '../../spend/constants.ts';
import { startOfLocalDayMs } from '../../core/localPeriods.ts';
import { capsProgress } from './budgets.ts';
import type { ControlDeps } from './deps.ts';
import { moneyOf } from './mapping.ts';

const DAY_MS = 24 * 60 * 60_000;
const RANGE_DAYS: Record<SpendRange, number> = { today: 1, '7d': 7, '30d': 30 };
const UNKNOWN_GROUP = '(unknown)';
/** The row of requests whose agent named no session (most clients other than Claude Code and Codex). */
export const NO_SESSION_KEY = '(no session)';
/** The sessions the Spend screen lists by name, those that cost most; the rest are one row. */
export const MAX_SESSION_ROWS = 100;

/** Start of the first local day in the range (today counts as one of the days). */
export function rangeStartMs(range: SpendRange, nowMs: number): number {
  return startOfLocalDayMs(startOfLocalDayMs(nowMs) - (RANGE_DAYS[range] - 1) * DAY_MS + DAY_MS / 2);
}

/** The gateways' stated charges of several rows: their sum while one profile's gateway stated them all. */
class StatedCharges {
  #sum: number | null = null;
  #profiles: string[] = [];

  add(row: SpendByDayRow): void {
    this.#sum = addGatewayCosts(this.#sum, row.gatewayCost);
    this.#profiles = joinGatewayCostProfiles(this.#profiles, row.gatewayCostProfiles);
  }

  /** Each gateway states in its own unit: a sum over two profiles would add credits to dollars. */
  get figure(): { gatewayCost: number | null; gatewayCostMixed: boolean } {
    const mixed = this.#profiles.length > 1;
    return { gatewayCost: mixed ? null : this.#sum, gatewayCostMixed: mixed };
  }
}

/** Per-day rows of one grouping → one row per group, most expensive first. */
export function sumByGroup(rows: readonly SpendByDayRow[], missingKey = UNKNOWN_GROUP): SpendRow[] {
  const groups = new Map<string, { sum: SpendRow; charges: StatedCharges }>();
  for (const row of rows) {
    const key = row.group ?? missingKey;
    const group = groups.get(key) ?? {
      sum: {
        key,
        requests: 0,
        inputTokens: 0,
        outputTokens: 0,
        costCredits: 0,
        unpricedRequests: 0,
        gatewayCost: null,
        gatewayCostMixed: false,
        unstatedRequests: 0,
      },
      charges: new StatedCharges(),
    };
    const { sum } = group;
    sum.requests += row.requests;
    sum.inputTokens += row.inputTokens;
    sum.outputTokens += row.outputTokens;
    sum.costCredits += row.costCredits;
    sum.unpricedRequests += row.unpricedRequests;
    group.charges.add(row);
    sum.unstatedRequests += row.unstatedRequests;
    groups.set(key, group);
  }
  return [...groups.values()]
    .map(({ sum, charges }) => ({ ...sum, ...charges.figure }))
    .sort((a, b) => b.costCredits - a.costCredits || b.requests - a.requests || a.key.localeCompare(b.key));
}

/** Per-day rows grouped by model → one entry per day with credits per model and the gateway's statement of the day. */
export function daysByModel(rows: readonly SpendByDayRow[]): SpendDay[] {
  const days = new Map<string, { day: SpendDay; charges: StatedCharges }>();
  for (const row of rows) {
    const entry = days.get(row.day) ?? { day: emptyDay(row.day), charges: new StatedCharges() };
    const { day } = entry;
    const model = row.group ?? UNKNOWN_GROUP;
    day.creditsByModel[model] = (day.creditsByModel[model] ?? 0) + row.costCredits;
    entry.charges.add(row);
    day.unstatedRequests += row.unstatedRequests;
    days.set(row.day, entry);
  }
  return [...days.values()].map(({ day, charges }) => ({ ...day, ...charges.figure })).sort((a, b) => a.day.localeCompare(b.day));
}

/** Today's hours so far, each named "HH:00", with credits per model (hours without spend included, so the chart shows the day). */
export function hoursByModel(rows: readonly SpendByDayRow[], nowMs: number): SpendDay[] {
  const byHour = new Map(daysByModel(rows).map((hour) => [hour.day.slice(-2), hour]));
  const currentHour = new Date(nowMs).getHours();
  return Array.from({ length: currentHour + 1 }, (_, hour) => {
    const name = String(hour).padStart(2, '0');
    return { ...(byHour.get(name) ?? emptyDay('')), day: `${name}:00` };
  });
}

function emptyDay(day: string): SpendDay {
  // No prototype: a client's model is named `constructor` or `__proto__` as well as anything else.
  const creditsByModel: Record<string, number> = Object.create(null);
  return { day, creditsByModel, gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 0 };
}

/** The Spend screen. Its reads run on the reader thread, asked together: they queue there, not on the forwarding thread. */
export async function buildSpend(deps: ControlDeps, range: SpendRange, nowMs: number): Promise<SpendResponse> {
  const toMs = nowMs + 1;
  const fromMs = rangeStartMs(range, nowMs);
  const reads = deps.log.reads;
  const totalSince = async (since: SpendRange) => moneyOf((await reads.totals({ fromMs: rangeStartMs(since, nowMs), toMs })).costCredits);
  const [byModel, byHour, byClient, byProfile, bySession, today, last7Days, last30Days] = await Promise.all([
    reads.spendByDay({ fromMs, toMs, groupBy: 'model' }),
    range === 'today' ? reads.spendByDay({ fromMs, toMs, groupBy: 'model', bucket: 'hour' }) : null,
    reads.spendByDay({ fromMs, toMs, groupBy: 'client' }),
    reads.spendByDay({ fromMs, toMs, groupBy: 'profile' }),
    reads.spendByDay({ fromMs, toMs, groupBy: 'session', maxGroups: MAX_SESSION_ROWS }),
    totalSince('today'),
    totalSince('7d'),
    totalSince('30d'),
  ]);
  return {
    range,
    totals: { today, last7Days, last30Days },
    perDay: daysByModel(byModel),
    perHour: byHour === null ? [] : hoursByModel(byHour, nowMs),
    perModel: sumByGroup(byModel),
    perClient: sumByGroup(byClient),
    perProfile: sumByGroup(byProfile),
    perSession: sumByGroup(bySession, NO_SESSION_KEY),
    budgets: capsProgress(deps.config.snapshot(), deps.spendGate?.ledger, deps.log.spendSince, nowMs),
    rates: {
      cnyPerCredit: CNY_PER_CREDIT,
      usdPerCreditApprox: USD_PER_CREDIT_APPROX,
      topUpTiers: TOP_UP_DISCOUNT_TIERS.map((tier) => ({ ...tier })),
    },
  };
}
