import { isRecord } from '../../core/isRecord.ts';
import type { TokenUsage } from '../../contracts/usage.ts';
import type { AnswerHeaders } from '../adapter.ts';

/**
 * Reads the OpenAI `usage` object from a Chat Completions response or stream chunk. Anything
 * malformed yields null rather than a guess: the caller then estimates and marks the row.
 */
export function usageFromChatResponse(json: unknown): TokenUsage | null {
  if (!isRecord(json)) return null;
  return usageFromObject(json['usage']);
}

/**
 * The usage of an answer that did not stream, with LiteLLM's price of it: stated in the
 * `x-litellm-response-cost` header, not in the usage (docs.litellm.ai/docs/proxy/response_headers),
 * kept beside `usage.cost` like OpenRouter's, which wins. Only such an answer: a stream's headers go
 * out before its usage exists, and LiteLLM states a stream's price in its `usage.cost` instead
 * (BerriAI/litellm#12689 asked for the header on streams).
 */
export function usageWithStatedPrice(usage: TokenUsage | null, headers: AnswerHeaders): TokenUsage | null {
  const stated = headers['x-litellm-response-cost'];
  if (usage === null || usage.gatewayCost !== undefined || typeof stated !== 'string' || stated.trim() === '') return usage;
  const gatewayCost = Number(stated);
  return Number.isFinite(gatewayCost) && gatewayCost >= 0 ? { ...usage, gatewayCost } : usage;
}

/**
 * The same for one parsed SSE chunk; only the final usage chunk normally carries it. Moonshot
 * (Kimi) puts it inside the finishing choice instead (earendil-works/pi#2017).
 */
export function usageFromChatChunk(chunk: unknown): TokenUsage | null {
  if (!isRecord(chunk)) return null;
  const choices = chunk['choices'];
  const [first] = Array.isArray(choices) ? choices : [];
  return usageFromObject(chunk['usage']) ?? (isRecord(first) ? usageFromObject(first['usage']) : null);
}

/**
 * The chunk `stream_options.include_usage` adds: no choices, only usage. Airlock drops it from the
 * client's stream when the client did not ask for it (some clients break on `choices: []`).
 */
export function isUsageOnlyChunk(chunk: unknown): boolean {
  if (!isRecord(chunk)) return false;
  const choices = chunk['choices'];
  const choicesEmpty = choices === undefined || choices === null || (Array.isArray(choices) && choices.length === 0);
  return choicesEmpty && isRecord(chunk['usage']);
}

function usageFromObject(value: unknown): TokenUsage | null {
  if (!isRecord(value)) return null;
  const inputTokens = tokenCount(value['prompt_tokens']);
  // Embedding responses report prompt tokens only; a present but malformed count is no usage.
  const outputTokens = value['completion_tokens'] === undefined ? 0 : tokenCount(value['completion_tokens']);
  if (inputTokens === null || outputTokens === null) return null;
  const usage: TokenUsage = { inputTokens, outputTokens: outputTokens + unnamedOutputTokens(value, inputTokens, outputTokens) };
  // DeepSeek and Kimi name their cache hits top-level instead, inside prompt_tokens all the same
  // (their chat API references: `prompt_cache_hit_tokens`, `cached_tokens`).
  const cachedInputTokens =
    tokenCount(nested(value, 'prompt_tokens_details', 'cached_tokens')) ??
    tokenCount(value['prompt_cache_hit_tokens']) ??
    tokenCount(value['cached_tokens']);
  if (cachedInputTokens !== null) usage.cachedInputTokens = cachedInputTokens;
  // Prompt-cache writes, inside prompt_tokens: OpenRouter's and OpenAI's cache_write_tokens; LiteLLM's
  // cache_creation_tokens, or in older versions only Anthropic's cache_creation_input_tokens beside the counts,
  // with the 1-hour part in cache_creation_token_details (litellm/types/utils.py Usage).
  const cacheWriteInputTokens =
    tokenCount(nested(value, 'prompt_tokens_details', 'cache_write_tokens')) ??
    tokenCount(nested(value, 'prompt_tokens_details', 'cache_creation_tokens')) ??
    tokenCount(value['cache_creation_input_tokens']);
  if (cacheWriteInputTokens !== null && cacheWriteInputTokens > 0) usage.cacheWriteInputTokens = cacheWriteInputTokens;
  const lifetimes = nested(value, 'prompt_tokens_details', 'cache_creation_token_details');
  const cacheWrite1hInputTokens = isRecord(lifetimes) ? tokenCount(lifetimes['ephemeral_1h_input_tokens']) : null;
  if (cacheWrite1hInputTokens !== null && cacheWrite1hInputTokens > 0) usage.cacheWrite1hInputTokens = cacheWrite1hInputTokens;
  const reasoningTokens = tokenCount(nested(value, 'completion_tokens_details', 'reasoning_tokens'));
  const unnamed = usage.outputTokens - outputTokens;
  if (reasoningTokens !== null || unnamed > 0) usage.reasoningTokens = reasoningTokens ?? unnamed;
  // The gateway's own charge: OpenRouter's (openrouter.ai/docs/use-cases/usage-accounting), LiteLLM's on a stream.
  const gatewayCost = value['cost'];
  if (typeof gatewayCost === 'number' && Number.isFinite(gatewayCost) && gatewayCost >= 0) usage.gatewayCost = gatewayCost;
  return usage;
}

/**
 * Output that `total_tokens` counts and `completion_tokens` leaves out: the thinking, in Gemini's
 * OpenAI-compatible answers and gateways translating Gemini (discuss.ai.google.dev/t/127400,
 * router-for-me/CLIProxyAPI#5733), and xAI's reasoning (named beside completion_tokens: vercel/ai#12425).
 * Both bill it as output; OpenAI's own total is the sum, so 0 there.
 */
function unnamedOutputTokens(value: Record<string, unknown>, inputTokens: number, outputTokens: number): number {
  const totalTokens = tokenCount(value['total_tokens']);
  // An embedding's usage has no completion, so nothing was written to think with.
  if (totalTokens === null || value['completion_tokens'] === undefined) return 0;
  return Math.max(0, totalTokens - inputTokens - outputTokens);
}

function nested(record: Record<string, unknown>, outer: string, inner: string): unknown {
  const details = record[outer];
  return isRecord(details) ? details[inner] : undefined;
}

function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
