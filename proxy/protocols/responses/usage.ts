import type { TokenUsage } from '../../contracts/usage.ts';

const count = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null);

function detail(fields: Record<string, unknown>, outer: string, inner: string): number | null {
  const details = fields[outer];
  return typeof details === 'object' && details !== null ? count((details as Record<string, unknown>)[inner]) : null;
}

/**
 * The `usage` of a Responses answer (also what image and audio answers carry): `input_tokens`
 * includes cached ones and cache writes, as Airlock counts. Writes are named in
 * `input_tokens_details.cache_write_tokens` (OpenAI bills them above the input price from GPT-5.6 on:
 * coder/mux#3705 quotes a live answer). Null without both counts: the caller then estimates.
 */
export function responsesUsageOf(usage: unknown): TokenUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const fields = usage as Record<string, unknown>;
  const inputTokens = count(fields.input_tokens);
  // Image and transcription answers may report input only.
  const outputTokens = fields.output_tokens === undefined ? 0 : count(fields.output_tokens);
  if (inputTokens === null || outputTokens === null) return null;
  const result: TokenUsage = { inputTokens, outputTokens };
  const cached = detail(fields, 'input_tokens_details', 'cached_tokens');
  const written = detail(fields, 'input_tokens_details', 'cache_write_tokens');
  const reasoning = detail(fields, 'output_tokens_details', 'reasoning_tokens');
  if (cached !== null && cached > 0) result.cachedInputTokens = cached;
  if (written !== null && written > 0) result.cacheWriteInputTokens = written;
  if (reasoning !== null && reasoning > 0) result.reasoningTokens = reasoning;
  return result;
}
