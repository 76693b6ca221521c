import type { TokenUsage } from '../../contracts/usage.ts';
import { isRecord } from '../../core/isRecord.ts';

const wholeCount = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null);

/**
 * The usage of an answer that counts its tokens as a `total_tokens` with no input count. A rerank's:
 * OpenRouter's rerank answers `usage: {search_units, total_tokens}` (its API reference,
 * CreateRerankResponseBody; a `cost` beside them where it states one), Jina's `usage: {total_tokens}`;
 * what a rerank or an embedding reads is all input, so the total is its input tokens. Beside a
 * `completion_tokens`, the total is that output and the rest input: Volcengine Ark's video task
 * states `{completion_tokens, total_tokens}`, equal, its video models counting no input (Ark's API
 * reference, 查询视频生成任务 API), and it was read as that many input tokens. Null when the usage
 * names its input tokens itself (those readers take it) or has no whole, non-negative total.
 */
export function totalTokensUsageOf(answer: Record<string, unknown>): TokenUsage | null {
  const { usage } = answer;
  if (!isRecord(usage)) return null;
  if (usage.prompt_tokens !== undefined || usage.input_tokens !== undefined || usage.output_tokens !== undefined) return null;
  const total = wholeCount(usage.total_tokens);
  const output = usage.completion_tokens === undefined ? 0 : wholeCount(usage.completion_tokens);
  if (total === null || output === null) return null;
  const result: TokenUsage = { inputTokens: Math.max(total - output, 0), outputTokens: output };
  const { cost } = usage;
  if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) result.gatewayCost = cost;
  return result;
}
