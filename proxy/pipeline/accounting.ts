import { costOf, findPrice } from '../billing/cost.ts';
import { estimateChatInputTokens, estimateTextTokens } from '../billing/estimate.ts';
import type { Profile } from '../contracts/profile.ts';
import type { TokenUsage } from '../contracts/usage.ts';
import type { ExchangePlan } from './plan.ts';
import type { RequestTrace, TraceAccounting } from './trace.ts';

/** Bytes per token for bodies too large to tokenise cheaply: a deliberate over-estimate for budgets. */
const BYTES_PER_TOKEN_FALLBACK = 3;
/** Tokenising runs on the event loop every request shares; past this, count bytes instead. */
const TOKENIZE_LIMIT_CHARS = 256 * 1024;

function estimateOutputTokens(text: string): number {
  return text.length > TOKENIZE_LIMIT_CHARS ? Math.ceil(Buffer.byteLength(text) / BYTES_PER_TOKEN_FALLBACK) : estimateTextTokens(text);
}

/** Loads the tokenizer (about 0.4 s, synchronous) at start rather than inside the first request. */
export function warmUpTokenizer(): void {
  estimateTextTokens('warm up');
}

export function estimateInputTokens(plan: ExchangePlan): number | null {
  if (plan.chatBody && plan.byteLength <= TOKENIZE_LIMIT_CHARS) return estimateChatInputTokens(plan.chatBody);
  if (plan.byteLength > 0 && plan.upstreamModel !== null) return Math.ceil(plan.byteLength / BYTES_PER_TOKEN_FALLBACK);
  return null;
}

function answeredText(trace: RequestTrace): string {
  const streamed = trace.streamText();
  if (streamed !== null) return streamed;
  const body = trace.responseBody.toBuffer();
  if (!body) return '';
  try {
    const json = JSON.parse(body.toString('utf8')) as { choices?: { message?: { content?: unknown } }[] };
    const content = json.choices?.[0]?.message?.content;
    return typeof content === 'string' ? content : '';
  } catch {
    return '';
  }
}

/**
 * Usage as reported, or, when a model answered without reporting it (or broke off mid-stream,
 * when the gateway may still charge), a tokenizer estimate marked as such; then its cost.
 */
export function accountFor(trace: RequestTrace, plan: ExchangePlan, profile: Profile): TraceAccounting {
  let usage: TokenUsage | null = trace.usage;
  let usageSource: TraceAccounting['usageSource'] = usage ? 'reported' : null;
  const reachedModel = trace.ttfbMs !== null && trace.status > 0 && trace.status < 400 && plan.upstreamModel !== null;
  if (!usage && reachedModel) {
    usage = { inputTokens: estimateInputTokens(plan) ?? 0, outputTokens: estimateOutputTokens(answeredText(trace)) };
    usageSource = 'estimated';
  }
  const price = findPrice(profile.prices, plan.upstreamModel);
  const { costCredits } = usage ? costOf(usage, price, profile.priceMultiplier) : { costCredits: null };
  return { usage, usageSource, costCredits };
}
