/**
 * The gateway's billing constants (seed section 1), in one place: nothing else hard-codes them.
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

export interface TopUpEstimate {
  credits: number;
  discountPercent: number;
  payCny: number;
  /** Card reference rate; checkout amount and fees differ. */
  payUsdApprox: number;
}

export function topUpEstimate(credits: number): TopUpEstimate {
  if (!Number.isFinite(credits) || credits < 0) throw new RangeError(`top-up credits must be a non-negative number, got ${credits}`);
  const tier = TOP_UP_DISCOUNT_TIERS.find((candidate) => credits >= candidate.minCredits);
  const discountPercent = tier?.discountPercent ?? 0;
  const payFactor = 1 - discountPercent / 100;
  return {
    credits,
    discountPercent,
    payCny: roundMoney(credits * CNY_PER_CREDIT * payFactor),
    payUsdApprox: roundMoney(credits * USD_PER_CREDIT_APPROX * payFactor),
  };
}

function roundMoney(amount: number): number {
  return Math.round((amount + Number.EPSILON) * 100) / 100;
}
