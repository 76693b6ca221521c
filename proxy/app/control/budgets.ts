import { BUDGET_ALERT_PERCENTS, type BudgetAlertPercent, type BudgetProgress } from '../../contracts/spend.ts';
import type { Budget } from '../../contracts/profile.ts';
import type { ConfigFile } from '../../contracts/config.ts';
import type { SpendSinceQuery } from '../../contracts/log.ts';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../../core/localPeriods.ts';
import { spentSinceFromLog, type SpendLedger, type SpendScope } from '../../spend/spendLedger.ts';

type SpendSince = (query: SpendSinceQuery) => number;
/** Credits a scope spent in a cap's period, which began at `sinceMs`. */
type SpentIn = (scope: SpendScope, period: BudgetProgress['period'], sinceMs: number) => number;

function progressFor(scope: SpendScope, budget: Budget | undefined, spentIn: SpentIn, nowMs: number): BudgetProgress[] {
  const periods: { period: BudgetProgress['period']; capCredits: number | undefined; sinceMs: number }[] = [
    { period: 'daily', capCredits: budget?.dailyCredits, sinceMs: startOfLocalDayMs(nowMs) },
    { period: 'monthly', capCredits: budget?.monthlyCredits, sinceMs: startOfLocalMonthMs(nowMs) },
  ];
  return periods
    .filter((entry): entry is typeof entry & { capCredits: number } => entry.capCredits !== undefined)
    .map(({ period, capCredits, sinceMs }) => {
      const spentCredits = spentIn(scope, period, sinceMs);
      return {
        scope: scope.kind,
        subject: scope.kind === 'profile' ? scope.profileId : scope.clientName,
        period,
        capCredits,
        spentCredits,
        reached: spentCredits >= capCredits,
        alertPercent: budgetAlertPercent(spentCredits, capCredits),
      };
    });
}

/** The highest alert share of the cap that the spend has reached, or null below the first. */
export function budgetAlertPercent(spentCredits: number, capCredits: number): BudgetAlertPercent | null {
  let passed: BudgetAlertPercent | null = null;
  // Compared as spent * 100 >= cap * share, so 8 of 10 is 80% without a rounding miss.
  for (const percent of BUDGET_ALERT_PERCENTS) if (spentCredits * 100 >= capCredits * percent) passed = percent;
  return passed;
}

/** Every daily and monthly cap of profiles and client tokens, with what the log says was spent. */
export function budgetProgress(config: ConfigFile, spendSince: SpendSince, nowMs: number): BudgetProgress[] {
  const spentSince = spentSinceFromLog(spendSince);
  return progressOfEveryCap(config, (scope, _period, sinceMs) => spentSince(scope, sinceMs), nowMs);
}

/** The same from the ledger the spend gate enforces caps from: what the window shows while the log cannot be read. */
export function ledgerBudgetProgress(config: ConfigFile, ledger: SpendLedger, nowMs: number): BudgetProgress[] {
  return progressOfEveryCap(
    config,
    (scope, period) => {
      const totals = ledger.totals(scope, nowMs);
      return period === 'daily' ? totals.dayCredits : totals.monthCredits;
    },
    nowMs,
  );
}

/**
 * Every cap's progress, from the ledger the spend gate refuses by where there is one: each cap's
 * read of the log sums its whole period's rows on the forwarding thread (72-76 ms for a profile's
 * daily and monthly caps on a 100 000-row month), where the ledger holds the same totals in memory,
 * and the window's figures then agree with what is refused.
 */
export function capsProgress(config: ConfigFile, ledger: SpendLedger | undefined, spendSince: SpendSince, nowMs: number): BudgetProgress[] {
  return ledger === undefined ? budgetProgress(config, spendSince, nowMs) : ledgerBudgetProgress(config, ledger, nowMs);
}

function progressOfEveryCap(config: ConfigFile, spentIn: SpentIn, nowMs: number): BudgetProgress[] {
  return [
    ...config.profiles.flatMap((profile) => progressFor({ kind: 'profile', profileId: profile.id }, profile.budget, spentIn, nowMs)),
    ...config.clientTokens.flatMap((token) => progressFor({ kind: 'client', clientName: token.name }, token.budget, spentIn, nowMs)),
  ];
}
