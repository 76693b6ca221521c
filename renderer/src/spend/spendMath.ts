import type { SpendDay, SpendResponse, TopUpTier } from '../../../proxy/contracts/spend.ts';

/** One bucket of the chart: its day, and credits per model id apart from it (a model may be named `day`). */
export interface ChartRow {
  day: string;
  credits: Record<string, number>;
}

export interface ChartData {
  rows: ChartRow[];
  /** Model ids, largest total first, so the legend lists the expensive ones first. */
  models: string[];
}

export function chartData(days: readonly SpendDay[]): ChartData {
  const totals = new Map<string, number>();
  for (const day of days)
    for (const [model, credits] of Object.entries(day.creditsByModel)) totals.set(model, (totals.get(model) ?? 0) + credits);
  const models = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([model]) => model);
  const rows = days.map((day) => {
    // No prototype, own entries only: a client's model may be named `constructor` or `__proto__`.
    const credits: Record<string, number> = Object.create(null);
    for (const model of models) credits[model] = Object.hasOwn(day.creditsByModel, model) ? day.creditsByModel[model]! : 0;
    return { day: day.day, credits };
  });
  return { rows, models };
}

export interface TopUpQuote {
  discountPercent: number;
  /** The next tier up, to show what a little more would save. */
  nextTier: TopUpTier | null;
  payCny: number;
  payUsdApprox: number;
}

/** What a top-up of `credits` costs with the gateway's discount tiers (the live checkout prevails). */
export function quoteTopUp(credits: number, rates: SpendResponse['rates']): TopUpQuote {
  const tiers = [...rates.topUpTiers].sort((a, b) => a.minCredits - b.minCredits);
  const applying = tiers.filter((tier) => credits >= tier.minCredits).at(-1);
  const discountPercent = applying?.discountPercent ?? 0;
  const payFactor = 1 - discountPercent / 100;
  return {
    discountPercent,
    nextTier: tiers.find((tier) => credits < tier.minCredits) ?? null,
    payCny: roundCents(credits * rates.cnyPerCredit * payFactor),
    payUsdApprox: roundCents(credits * rates.usdPerCreditApprox * payFactor),
  };
}

function roundCents(amount: number): number {
  return Math.round(amount * 100) / 100;
}
