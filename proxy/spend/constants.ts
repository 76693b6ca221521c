/**
 * The gateway's billing constants (docs/gateway-spec.md §1), in one place: nothing else hard-codes them.
 * The live checkout amount prevails over these figures, so every converted value is for display.
 */
export const CNY_PER_CREDIT = 0.75;
/** Card reference only: checkout rate and processor fees differ, so USD is always "approx". */
export const USD_PER_CREDIT_APPROX = 0.11;

/** Top-up discount tiers, highest threshold first so the first match is the one that applies. */
export const TOP_UP_DISCOUNT_TIERS: readonly { minCredits: number; discountPercent: number }[] = [
  { minCredits: 1000, discountPercent: 2 },
  { minCredits: 500, discountPercent: 1.5 },
  { minCredits: 100, discountPercent: 1 },
];

/**
 * Conversions for display: exact, never rounded to the cent here, so an amount under ¥0.01 is
 * shown as such (formatMoney in contracts/amounts.ts) rather than as ¥0.00.
 */
export function toCny(credits: number): number {
  return credits * CNY_PER_CREDIT;
}

export function toUsdApprox(credits: number): number {
  return credits * USD_PER_CREDIT_APPROX;
}
