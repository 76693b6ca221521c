/**
 * Credit and money amounts as people read them, the same in the window, the tray, the CLI and
 * Airlock's error messages. Pure (no Node APIs): the renderer imports it too.
 */

/** Below this, a credit amount shows two significant digits instead of four decimals. */
const SMALL_CREDITS = 0.0001;
/** The smallest amount of money a price shows (a cent or a fen). */
const SMALLEST_MONEY = 0.01;

/**
 * 2 decimals from 1 credit up, 4 below, and two significant digits below 0.0001, so a tiny cost
 * never reads as 0: 1,234.5 / 0.0123 / 0.000042. null is a model without a price.
 */
export function formatCredits(credits: number | null): string {
  if (credits === null) return 'unpriced';
  const size = Math.abs(credits);
  if (size > 0 && size < SMALL_CREDITS) {
    return credits.toLocaleString('en-US', { maximumSignificantDigits: 2, maximumFractionDigits: 20 });
  }
  return credits.toLocaleString('en-US', { maximumFractionDigits: size < 1 ? 4 : 2 });
}

/**
 * What a gateway said it charged (OpenRouter's credits, LiteLLM's dollars), in its own unit: six
 * significant digits, since a request's charge is often a few ten-thousandths.
 */
export function formatGatewayCharge(charge: number): string {
  return charge.toLocaleString('en-US', { maximumSignificantDigits: 6, maximumFractionDigits: 20 });
}

/** Two sums of what gateways stated they charged, each null when none was stated: null only when both are. */
export function addGatewayCosts(sum: number | null, added: number | null): number | null {
  return sum === null ? added : sum + (added ?? 0);
}

/** The profiles of two sums of stated charges, sorted, each once (SpendByDayRow.gatewayCostProfiles). */
export function joinGatewayCostProfiles(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

/** Two decimals, and "<¥0.01" for an amount above zero that would otherwise read ¥0.00. */
export function formatMoney(amount: number, currency: 'CNY' | 'USD'): string {
  const symbol = currency === 'CNY' ? '¥' : '$';
  if (amount > 0 && amount < SMALLEST_MONEY) return `<${symbol}${SMALLEST_MONEY.toFixed(2)}`;
  return `${symbol}${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * Whether a number's text is not zero but its value is: below the smallest double (about 5e-324)
 * a price such as 1e-999 reads as 0, which would make a priced model free. The price imports and
 * the window's price form refuse it with `tooSmallToStore`.
 */
export function readsAsZero(source: string, value: number): boolean {
  const digits = source.split(/[eE]/, 1)[0] ?? '';
  return value === 0 && /[1-9]/.test(digits);
}

export function tooSmallToStore(source: string): string {
  return `'${source}' is too small to store: it would read as 0 and make the model free (write 0 if it is free)`;
}

/**
 * A number past the largest double (about 1.8e308, so 1e400) reads as Infinity: a field took it, and sent as JSON it
 * became null, refused with "expected number, received null", naming neither the text nor the cause.
 */
function tooLargeToStore(source: string): string {
  return `'${source}' is too large to store: past about 1.8e308 a number reads as infinite; write the number meant`;
}

/** A plain number as JSON and the price import write it: digits, one decimal point (`.5` too), an exponent, a sign. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A number typed or pasted into a form field: undefined when blank, the number, or a problem that says what to write
 * instead (an infinite one too). A decimal comma (`1,5`) or thousands separator and a currency sign are refused by name, never guessed; text
 * with no digit at all is NaN, which the schema refuses with its own words.
 */
export function typedNumber(text: string): number | { problem: string } | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (PLAIN_NUMBER.test(trimmed)) {
    const value = Number(trimmed);
    return Number.isFinite(value) ? value : { problem: tooLargeToStore(trimmed) };
  }
  if (!/\d/.test(trimmed)) return Number.NaN;
  if (trimmed.includes(','))
    return { problem: `'${trimmed}' has a comma: write the number with a decimal point and no thousands separator (1.5, 1000)` };
  return { problem: `'${trimmed}' is not a plain number: write digits and a decimal point only, without a currency sign, unit or spaces` };
}
