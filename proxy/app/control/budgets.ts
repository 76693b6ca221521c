import { BUDGET_ALERT_PERCENTS, type BudgetAlertPercent, type BudgetProgress } from '../../contracts/spend.ts';
import type { Budget } from '../../contracts/profile.ts';
import type { ConfigFile } from '../../contracts/config.ts';
import type { SpendSinceQuery } from '../../contracts/log.ts';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../../core/localPeriods.ts';

type SpendSince = (query: SpendSinceQuery) => number;

function progressFor(
  scope: BudgetProgress['scope'],
  subject: string,
  budget: Budget | undefined,
  spentSince: (sinceMs: number) => number,
  nowMs: number,
): BudgetProgress[] {
  const periods: { period: BudgetProgress['period']; capCredits: number | undefined; sinceMs: number }[] = [
    { period: 'daily', capCredits: budget?.dailyCredits, sinceMs: startOfLocalDayMs(nowMs) },
    { period: 'monthly', capCredits: budget?.monthlyCredits, sinceMs: startOfLocalMonthMs(nowMs) },
  ];
  return periods
    .filter((entry): entry is typeof entry & { capCredits: number } => entry.capCredits !== undefined)
    .map(({ period, capCredits, sinceMs }) => {
      const spentCredits = spentSince(sinceMs);
      return {
        scope,
        subject,
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
  return [
    ...config.profiles.flatMap((profile) =>
      progressFor('profile', profile.id, profile.budget, (sinceMs) => spendSince({ sinceMs, profileId: profile.id }), nowMs),
    ),
    ...config.clientTokens.flatMap((token) =>
      progressFor('client', token.name, token.budget, (sinceMs) => spendSince({ sinceMs, clientName: token.name }), nowMs),
    ),
  ];
}
