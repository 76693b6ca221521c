import type { Usage } from './chatReply.ts';

/**
 * How a gateway words the usage of a chat answer, from the same counts (the plan's `Usage`):
 * - openai: cached tokens inside `prompt_tokens` and named in `prompt_tokens_details.cached_tokens`,
 *   thinking inside `completion_tokens` and named in `completion_tokens_details.reasoning_tokens`
 *   (OpenAI's chat reference; details only where the plan has them, so plain answers look as before)
 * - deepseek: cache hits and misses as top-level `prompt_cache_hit_tokens` and
 *   `prompt_cache_miss_tokens`, which add up to `prompt_tokens`, and no `prompt_tokens_details`
 *   (api-docs.deepseek.com/api/create-chat-completion; a response quoted in BerriAI/litellm#5017;
 *   NousResearch/hermes-agent#65678)
 * - gemini: Google's OpenAI-compatible endpoint leaves the thinking out of `completion_tokens`
 *   while `total_tokens` counts it, and names no details (a streamed reply with completion 1,
 *   prompt 9, total 103: discuss.ai.google.dev/t/127400; the same gap in gateways translating
 *   Gemini: router-for-me/CLIProxyAPI#5733, mozilla-ai/any-llm#1290)
 * - openrouter: OpenAI's, plus the `cost` it charged in its own credits (USD) and `cost_details`
 *   (openrouter.ai/docs/use-cases/usage-accounting)
 * - litellm: OpenAI's, plus the `cost` LiteLLM priced the reply at (USD, its own cost map) on a
 *   stream's usage (`include_cost_in_streaming_usage`, the default since BerriAI/litellm#39069); a
 *   reply that did not stream states it in the `x-litellm-response-cost` header only
 *   (docs.litellm.ai/docs/proxy/response_headers; BerriAI/litellm#12689, #41486): see chat.ts
 */
export type UsageWording = 'openai' | 'deepseek' | 'gemini' | 'openrouter' | 'litellm';

/** What the simulated OpenRouter charges, in its credits: any figure, as long as no test can take it for Airlock's. */
const OPENROUTER_CREDITS_PER_TOKEN = 0.000_003;
/** What the simulated LiteLLM prices a token at, in USD: another figure no test can take for Airlock's. */
const LITELLM_USD_PER_TOKEN = 0.000_007;

/** The simulated OpenRouter's charge for a reply, as its usage states it. */
export function openRouterCost(usage: Usage): number {
  return usage.total_tokens * OPENROUTER_CREDITS_PER_TOKEN;
}

/** The simulated LiteLLM's price of a reply, as its stream's usage or its header states it. */
export function liteLlmResponseCost(usage: Usage): number {
  return usage.total_tokens * LITELLM_USD_PER_TOKEN;
}

export function wordedUsage(usage: Usage, wording: UsageWording): Record<string, unknown> {
  const { prompt_tokens, completion_tokens, total_tokens, cachedTokens, reasoningTokens } = usage;
  const counts: Record<string, unknown> = { prompt_tokens, completion_tokens, total_tokens };
  if (wording === 'gemini') return { ...counts, completion_tokens: completion_tokens - (reasoningTokens ?? 0) };
  if (reasoningTokens !== undefined) counts.completion_tokens_details = { reasoning_tokens: reasoningTokens };
  if (wording === 'deepseek') {
    const hit = cachedTokens ?? 0;
    return { ...counts, prompt_cache_hit_tokens: hit, prompt_cache_miss_tokens: prompt_tokens - hit };
  }
  if (cachedTokens !== undefined) counts.prompt_tokens_details = { cached_tokens: cachedTokens };
  if (wording === 'openrouter') return { ...counts, cost: openRouterCost(usage), cost_details: { upstream_inference_cost: null } };
  if (wording === 'litellm') return { ...counts, cost: liteLlmResponseCost(usage) };
  return counts;
}
