import type { ProfileSpend } from '../contracts/log.ts';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../core/localPeriods.ts';
import { CreditSum } from './creditSum.ts';
import type { SpendSinceQuery } from '../contracts/log.ts';

/**
 * Running credit totals per profile and per client token for the current local day and month,
 * kept in memory so the spend gate decides without I/O. Seeded from the log at start, and for a
 * scope added later (app/ledgerScopes.ts); afterwards every ended request is recorded here as well
 * as in the log.
 */
export type SpendScope = { kind: 'profile'; profileId: string } | { kind: 'client'; clientName: string };

export interface SpendTotals {
  dayCredits: number;
  monthCredits: number;
}

export interface SpendRecord {
  profileId: string;
  clientName: string | null;
  /** null (unpriced) counts as 0: caps can only limit what has a price. */
  costCredits: number | null;
  /** Of `costCredits`, what profiles a fallback left may be billed (FallbackHop.costCredits): their spend, not `profileId`'s. */
  leftSpend?: readonly ProfileSpend[];
  /**
   * When the request started. Its spend belongs to that local day and month, as everywhere else
   * (the log's rows, the Spend screen, exports, the totals a restart rebuilds from the log): a request
   * begun at 23:59 and ended at 00:01 was admitted under yesterday's cap and is listed yesterday.
   */
  atMs: number;
}

/** Credits the log holds for a scope since a time (the log's `spendSince`). */
export type SpentSince = (scope: SpendScope, sinceMs: number) => number;

/** Adapts the request log's `spendSince(query)` to the ledger's seeding function. */
export function spentSinceFromLog(spendSince: (query: SpendSinceQuery) => number): SpentSince {
  return (scope, sinceMs) =>
    scope.kind === 'profile' ? spendSince({ sinceMs, profileId: scope.profileId }) : spendSince({ sinceMs, clientName: scope.clientName });
}

interface ScopeTotals {
  scope: SpendScope;
  dayStartMs: number;
  monthStartMs: number;
  day: CreditSum;
  month: CreditSum;
  /**
   * The log's spend, when the seed found some dated after its now: read again at each new period
   * while the log dates spend past it (below, rollForward). Such rows come from before this start, made with a right clock
   * while this start's clock is behind (store/futureRows.ts leaves them at their dates).
   */
  ahead: SpentSince | null;
}

const ZERO_TOTALS: SpendTotals = { dayCredits: 0, monthCredits: 0 };

export class SpendLedger {
  readonly #totals = new Map<string, ScopeTotals>();

  /**
   * Replaces the totals of these scopes with what the log holds for today and this month.
   * Call at start for every known profile and client token (and for one added later).
   */
  seed(scopes: readonly SpendScope[], spentSince: SpentSince, nowMs: number): void {
    const dayStartMs = startOfLocalDayMs(nowMs);
    const monthStartMs = startOfLocalMonthMs(nowMs);
    for (const scope of scopes) {
      this.#totals.set(scopeKey(scope), {
        scope,
        dayStartMs,
        monthStartMs,
        day: new CreditSum(spentSince(scope, dayStartMs)),
        month: new CreditSum(spentSince(scope, monthStartMs)),
        ahead: spentSince(scope, nowMs + 1) > 0 ? spentSince : null,
      });
    }
  }

  /** Seeds only the scopes it holds no totals for yet: the others count this run's spend, which the log may not have written yet. */
  seedNew(scopes: readonly SpendScope[], spentSince: SpentSince, nowMs: number): void {
    const added = scopes.filter((scope) => !this.#totals.has(scopeKey(scope)));
    if (added.length > 0) this.seed(added, spentSince, nowMs);
  }

  /** The client is charged the whole cost; each profile its own part of it (a fallback's left runs, the rest the answering one's). */
  record(spend: SpendRecord): void {
    const credits = spend.costCredits ?? 0;
    if (credits <= 0) return;
    let answeringCredits = credits;
    for (const left of spend.leftSpend ?? []) {
      this.#add({ kind: 'profile', profileId: left.profileId }, left.costCredits, spend.atMs);
      answeringCredits -= left.costCredits;
    }
    if (answeringCredits > 0) this.#add({ kind: 'profile', profileId: spend.profileId }, answeringCredits, spend.atMs);
    if (spend.clientName !== null) this.#add({ kind: 'client', clientName: spend.clientName }, credits, spend.atMs);
  }

  totals(scope: SpendScope, nowMs: number): SpendTotals {
    const entry = this.#totals.get(scopeKey(scope));
    if (!entry) return ZERO_TOTALS;
    rollForward(entry, nowMs);
    followClockSetBack(entry, nowMs);
    return { dayCredits: entry.day.credits, monthCredits: entry.month.credits };
  }

  /**
   * The OS's time zone changed (core/localZone.ts): today and this month now start where the new
   * zone's do, earlier or later than before. Each total moves by what the log holds between the
   * old start and the new one; spend the log has not written yet is recent, after both starts, so
   * it stays counted here and is not counted twice. Rebuilding from the log would lose it instead.
   */
  followZoneChange(spentSince: SpentSince, nowMs: number): void {
    const dayStartMs = startOfLocalDayMs(nowMs);
    const monthStartMs = startOfLocalMonthMs(nowMs);
    const moved = (scope: SpendScope, sum: CreditSum, fromMs: number, toMs: number): CreditSum =>
      fromMs === toMs ? sum : new CreditSum(Math.max(0, sum.credits + spentSince(scope, toMs) - spentSince(scope, fromMs)));
    for (const entry of this.#totals.values()) {
      entry.day = moved(entry.scope, entry.day, entry.dayStartMs, dayStartMs);
      entry.month = moved(entry.scope, entry.month, entry.monthStartMs, monthStartMs);
      entry.dayStartMs = dayStartMs;
      entry.monthStartMs = monthStartMs;
    }
  }

  #add(scope: SpendScope, credits: number, atMs: number): void {
    const key = scopeKey(scope);
    let entry = this.#totals.get(key);
    if (!entry) {
      entry = {
        scope,
        dayStartMs: startOfLocalDayMs(atMs),
        monthStartMs: startOfLocalMonthMs(atMs),
        day: new CreditSum(),
        month: new CreditSum(),
        ahead: null,
      };
      this.#totals.set(key, entry);
    }
    rollForward(entry, atMs);
    // A request that started in an earlier period than the ledger's current one belongs to that period.
    if (atMs >= entry.dayStartMs) entry.day.add(credits);
    if (atMs >= entry.monthStartMs) entry.month.add(credits);
  }
}

/**
 * Periods only move forward: a clock stepping back must not resurrect yesterday's total. A new
 * period starts from nothing, as this run records every request it makes there after the roll (the
 * first admission or record in it rolls). Only rows from before the start can already be dated in
 * it: with the seed's clock behind and set right since, they were made there, and are read. Rows
 * dated past the new day too (a clock days behind that went past its own midnight before it was set
 * right) are read again at the next roll, not left out of the day they were made in.
 */
function rollForward(entry: ScopeTotals, nowMs: number): void {
  const dayStartMs = startOfLocalDayMs(nowMs);
  if (dayStartMs <= entry.dayStartMs) return;
  entry.dayStartMs = dayStartMs;
  entry.day = new CreditSum(loggedAhead(entry, dayStartMs));
  const monthStartMs = startOfLocalMonthMs(nowMs);
  if (monthStartMs > entry.monthStartMs) {
    entry.monthStartMs = monthStartMs;
    entry.month = new CreditSum(loggedAhead(entry, monthStartMs));
  }
  // 36 h on lies in the next local day, whether this one has 23, 24 or 25 hours.
  if (loggedAhead(entry, startOfLocalDayMs(dayStartMs + 36 * HOUR_MS)) === 0) entry.ahead = null;
}

const HOUR_MS = 3_600_000;

/**
 * The log's spend since a time, where the seed found some dated ahead; else nothing. A log that
 * cannot be read (it tells the user itself) must not fail the request whose admission rolls, nor
 * leave the period half rolled: the new period starts from nothing, as before rows ahead were read.
 */
function loggedAhead(entry: ScopeTotals, sinceMs: number): number {
  if (entry.ahead === null) return 0;
  try {
    return entry.ahead(entry.scope, sinceMs);
  } catch {
    entry.ahead = null;
    return 0;
  }
}

/**
 * The clock was set back past the start of the current period (it ran ahead and was corrected):
 * what was spent under the wrong date was spent now, so the totals are kept, and the period starts
 * where the clock's does, so new spend counts again. Only the reading of now (admission) does this:
 * a record's start may be legitimately earlier (a request begun yesterday).
 */
function followClockSetBack(entry: ScopeTotals, nowMs: number): void {
  entry.dayStartMs = Math.min(entry.dayStartMs, startOfLocalDayMs(nowMs));
  entry.monthStartMs = Math.min(entry.monthStartMs, startOfLocalMonthMs(nowMs));
}

export function scopeKey(scope: SpendScope): string {
  return scope.kind === 'profile' ? `profile:${scope.profileId}` : `client:${scope.clientName}`;
}
