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

/** Cost precision: 1e-6 credits, so sums of many tiny calls do not drift into float noise. */
export const CREDIT_PRECISION_DIGITS = 6;

export function roundCredits(credits: number): number {
  const factor = 10 ** CREDIT_PRECISION_DIGITS;
  return Math.round((credits + Number.EPSILON) * factor) / factor;
}

export function toCny(credits: number): number {
  return roundMoney(credits * CNY_PER_CREDIT);
}

export function toUsdApprox(credits: number): number {
  return roundMoney(credits * USD_PER_CREDIT_APPROX);
}

/** A credit amount for people: up to 4 decimals below 1, 2 above, never "0" for a tiny non-zero cost. */
export function formatCredits(credits: number | null): string {
  if (credits === null) return 'unpriced';
  const maximumFractionDigits = Math.abs(credits) < 1 ? 4 : 2;
  const text = credits.toLocaleString('en-US', { maximumFractionDigits, useGrouping: false });
  if (text === '0' && credits > 0) return '<0.0001';
  return text;
}

function roundMoney(amount: number): number {
  return Math.round((amount + Number.EPSILON) * 100) / 100;
}
