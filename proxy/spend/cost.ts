import type { BilledUnits } from '../contracts/ports.ts';
import type { ModelPrice } from '../contracts/profile.ts';
import type { PromptCacheWrites, TokenUsage } from '../contracts/usage.ts';

const TOKENS_PER_PRICE_UNIT = 1_000_000;
const CHARACTERS_PER_PRICE_UNIT = 1_000_000;
const SECONDS_PER_MINUTE = 60;
/**
 * Prompt-cache writes where a price names no write price: Anthropic bills a 5-minute write at 1.25x
 * the input price and a 1-hour write at 2x (its "Prompt caching" pricing). At the input price they
 * were counted 20% or 50% short, and a budget cap let that much through.
 */
const CACHE_WRITE_5M_PER_INPUT = 1.25;
const CACHE_WRITE_1H_PER_INPUT = 2;

export interface CostResult {
  /**
   * null when the cost cannot be known: the model has no price ("unpriced", never shown as 0), or
   * it is priced per token and no usage is known.
   */
  costCredits: number | null;
  priced: boolean;
}

const UNPRICED: CostResult = { costCredits: null, priced: false };

/**
 * Credits for one request, never rounded: a cost of a few millionths of a credit is kept as it is,
 * so a million small requests add up to what the gateway charges (a double carries about 16
 * significant digits, and SQLite's TOTAL sums them with compensation). Cached tokens are part of
 * the input tokens: with a cached price they are billed at it and only the rest at the input price.
 * So are cache writes, billed at the write prices (by default Anthropic's multiples of the input price).
 * Per-call prices (images, video) add `calls` times. Usage may be null for per-call-only models (an
 * image call reports no tokens). A cached-input price alone does not price a model: it only
 * refines an input price. Audio billed by duration costs its seconds at the price per minute; a
 * price per minute without reported seconds, or seconds without such a price, is an unknown cost,
 * never 0 (tokens of 0 stand beside reported seconds). Video seconds and speech characters are the
 * request's own (`units`, billedUnits.ts), priced as `unitsCostOf` says.
 */
export function costOf(
  usage: TokenUsage | null,
  price: ModelPrice | undefined,
  multiplier: number,
  calls = 1,
  units: BilledUnits | null = null,
): CostResult {
  if (!pricesAnything(price)) return UNPRICED;
  const tokenPriced = price.inputPer1M !== undefined || price.outputPer1M !== undefined;
  const durationPriced = price.perAudioMinute !== undefined;
  if ((tokenPriced || durationPriced) && usage === null) return { costCredits: null, priced: true };
  const audioSeconds = usage?.audioSeconds;
  if (durationPriced !== (audioSeconds !== undefined)) return { costCredits: null, priced: true };
  const unitCredits = unitsCostOf(units, price, 1);
  if (unitCredits === null) return { costCredits: null, priced: true };

  let credits = (price.perCall ?? 0) * calls + unitCredits;
  if (usage) credits += tokenCredits(usage, price);
  if (audioSeconds !== undefined) credits += audioCostOf(audioSeconds, price, 1) ?? 0;
  return { costCredits: credits * multiplier, priced: true };
}

/**
 * Credits for what a request states it is billed by: its video seconds at a price per second, its
 * speech characters at a price per 1M characters. 0 where the price has neither; null (unknown, never
 * 0) where it prices a unit the request does not state, as a price per audio minute without seconds is.
 */
export function unitsCostOf(units: BilledUnits | null, price: ModelPrice, multiplier: number): number | null {
  let credits = 0;
  if (price.perVideoSecond !== undefined) {
    if (units?.videoSeconds === undefined) return null;
    credits += units.videoSeconds * price.perVideoSecond;
  }
  if (price.perMillionCharacters !== undefined) {
    if (units?.speechCharacters === undefined) return null;
    credits += (units.speechCharacters / CHARACTERS_PER_PRICE_UNIT) * price.perMillionCharacters;
  }
  return credits * multiplier;
}

/**
 * Whether a price says what anything of its model costs: a cached-input price alone only refines an
 * input price. A model without one is unpriced: its spend counts toward no cap (so a capped profile
 * refuses it, budgetDecision.ts).
 */
export function pricesAnything(price: ModelPrice | undefined): price is ModelPrice {
  if (price === undefined) return false;
  return (
    price.inputPer1M !== undefined ||
    price.outputPer1M !== undefined ||
    price.perCall !== undefined ||
    price.perAudioMinute !== undefined ||
    price.perVideoSecond !== undefined ||
    price.perMillionCharacters !== undefined
  );
}

/** Credits for seconds of audio at a price per audio minute (whisper-1, billed to the second); null without such a price. */
export function audioCostOf(audioSeconds: number, price: ModelPrice | undefined, multiplier: number): number | null {
  if (!price || price.perAudioMinute === undefined) return null;
  return (audioSeconds / SECONDS_PER_MINUTE) * price.perAudioMinute * multiplier;
}

/**
 * Input-side credits for a token count, the most it may cost (caps and holds use this before
 * sending): a request whose markers ask for prompt-cache writes may have all its input written, at
 * the write price of the longest-lived marker or the input price, whichever is higher. Held at the
 * input price, a 1-hour write was counted half short.
 */
export function inputCostOf(
  inputTokens: number,
  price: ModelPrice | undefined,
  multiplier: number,
  writes: PromptCacheWrites = 'none',
): number | null {
  if (!price || price.inputPer1M === undefined) return null;
  return ((inputTokens * inputBoundPer1M(price, price.inputPer1M, writes)) / TOKENS_PER_PRICE_UNIT) * multiplier;
}

function inputBoundPer1M(price: ModelPrice, inputPer1M: number, writes: PromptCacheWrites): number {
  if (writes === 'none') return inputPer1M;
  const write5m = price.cacheWritePer1M ?? inputPer1M * CACHE_WRITE_5M_PER_INPUT;
  // A request may mix both lifetimes (1-hour markers before 5-minute ones): the dearer bounds it.
  const write1h = writes === '1h' ? (price.cacheWrite1hPer1M ?? inputPer1M * CACHE_WRITE_1H_PER_INPUT) : 0;
  return Math.max(inputPer1M, write5m, write1h);
}

/** The most a request's output may cost at `outputTokens` (its stated limit): held against caps while it runs. */
export function outputCostOf(outputTokens: number, price: ModelPrice | undefined, multiplier: number): number | null {
  if (!price || price.outputPer1M === undefined) return null;
  return ((outputTokens * price.outputPer1M) / TOKENS_PER_PRICE_UNIT) * multiplier;
}

/**
 * The price of what a request runs: the gateway's model id's, else the price of the name an alias or
 * route resolved to it (a price list keyed by the names clients send, Anthropic's or OpenAI's own,
 * beside an alias to the gateway's id for the same model). Unpriced, its spend counted against no cap.
 */
export function priceOfRequest(
  prices: readonly ModelPrice[],
  models: { upstreamModel: string | null; routedFrom?: string | null },
): ModelPrice | undefined {
  const routedFrom = models.routedFrom ?? null;
  const price = findPrice(prices, models.upstreamModel);
  // Without an alias the two names are one: a second search would fail as the first did.
  return price !== undefined || routedFrom === models.upstreamModel ? price : findPrice(prices, routedFrom);
}

/** Exact model id first; the gateway's ids are case-sensitive, but a user's price table may not be. */
export function findPrice(prices: readonly ModelPrice[], model: string | null): ModelPrice | undefined {
  if (model === null) return undefined;
  const exact = prices.find((price) => price.model === model);
  if (exact) return exact;
  const lower = model.toLowerCase();
  return prices.find((price) => price.model.toLowerCase() === lower);
}

/** Reads, then writes, are capped at the input left: a count above it cannot be billed twice. */
function tokenCredits(usage: TokenUsage, price: ModelPrice): number {
  const inputPer1M = price.inputPer1M ?? 0;
  const readTokens = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const writeTokens = Math.min(usage.cacheWriteInputTokens ?? 0, usage.inputTokens - readTokens);
  const write1hTokens = Math.min(usage.cacheWrite1hInputTokens ?? 0, writeTokens);
  const plainTokens = usage.inputTokens - readTokens - writeTokens;
  const perMillion =
    plainTokens * inputPer1M +
    readTokens * (price.cachedInputPer1M ?? inputPer1M) +
    (writeTokens - write1hTokens) * (price.cacheWritePer1M ?? inputPer1M * CACHE_WRITE_5M_PER_INPUT) +
    write1hTokens * (price.cacheWrite1hPer1M ?? inputPer1M * CACHE_WRITE_1H_PER_INPUT) +
    usage.outputTokens * (price.outputPer1M ?? 0);
  return perMillion / TOKENS_PER_PRICE_UNIT;
}
