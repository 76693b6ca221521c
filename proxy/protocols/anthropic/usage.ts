import type { TokenUsage } from '../../contracts/usage.ts';
import { isRecord } from '../../core/isRecord.ts';

const count = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null);

/**
 * Anthropic's `usage` as Airlock counts tokens: Anthropic reports cache reads and cache writes apart
 * from `input_tokens`, Airlock's input includes them (cache reads also as `cachedInputTokens`,
 * priced at the cached rate; cache writes also as `cacheWriteInputTokens`, with the 1-hour part
 * from `cache_creation`, since a 1-hour write costs more). Null without both counts: the caller then estimates.
 */
export function anthropicUsageOf(usage: unknown, inputFallback: number | null = null): TokenUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const fields = usage as Record<string, unknown>;
  const input = count(fields.input_tokens) ?? inputFallback;
  const output = count(fields.output_tokens);
  if (input === null || output === null) return null;
  const cacheRead = count(fields.cache_read_input_tokens) ?? 0;
  const lifetimes = isRecord(fields.cache_creation) ? fields.cache_creation : {};
  const write1h = count(lifetimes.ephemeral_1h_input_tokens) ?? 0;
  const cacheWrite = count(fields.cache_creation_input_tokens) ?? (count(lifetimes.ephemeral_5m_input_tokens) ?? 0) + write1h;
  const result: TokenUsage = { inputTokens: input + cacheRead + cacheWrite, outputTokens: output };
  if (cacheRead > 0) result.cachedInputTokens = cacheRead;
  if (cacheWrite > 0) result.cacheWriteInputTokens = cacheWrite;
  if (write1h > 0) result.cacheWrite1hInputTokens = write1h;
  return result;
}
