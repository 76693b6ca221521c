import type { TokenUsage } from '../../contracts/usage.ts';
import { isRecord } from '../../core/isRecord.ts';

/**
 * The usage of an answer that counts its tokens only as `total_tokens`: a rerank's. OpenRouter's
 * rerank answers `usage: {search_units, total_tokens}` (its API reference, CreateRerankResponseBody;
 * a `cost` beside them where it states one), Jina's `usage: {total_tokens}`. What a rerank or
 * an embedding reads is all input: the total is its input tokens. Null when the usage names its
 * input or output tokens itself (those readers take it) or has no whole, non-negative total.
 */
export function totalTokensUsageOf(answer: Record<string, unknown>): TokenUsage | null {
  const { usage } = answer;
  if (!isRecord(usage)) return null;
  if (usage.prompt_tokens !== undefined || usage.input_tokens !== undefined || usage.output_tokens !== undefined) return null;
  const total = usage.total_tokens;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) return null;
  const result: TokenUsage = { inputTokens: total, outputTokens: 0 };
  const { cost } = usage;
  if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) result.gatewayCost = cost;
  return result;
}
