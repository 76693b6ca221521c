/** Token usage in the gateway's terms; optional fields only where the upstream reports them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  /** Tokens written to the prompt cache, part of `inputTokens` (billed above the input price by Anthropic). */
  cacheWriteInputTokens?: number;
  /** Of `cacheWriteInputTokens`, those written for a 1-hour cache (the rest are for 5 minutes). */
  cacheWrite1hInputTokens?: number;
  reasoningTokens?: number;
  /** Seconds of input audio, for a model billed by duration (whisper-1's usage `{type: "duration", seconds}`). */
  audioSeconds?: number;
  /**
   * What the gateway says it charged, in its own unit (OpenRouter's `usage.cost` in its credits,
   * LiteLLM's price in USD): shown beside Airlock's price, never priced nor counted against caps.
   */
  gatewayCost?: number;
}

/** Which wire protocol the client spoke, and whether Airlock translated it to Chat Completions. */
export type ClientProtocol = 'openai' | 'anthropic' | 'responses';
export type ProtocolMode = 'native' | 'translate';

/**
 * The longest-lived prompt-cache write a request's body asks for with Anthropic's `cache_control`
 * markers (on a block, or top-level for automatic caching; LiteLLM and OpenRouter pass them on in a
 * chat body): none, 5 minutes (the default), or 1 hour. Its input may be billed at that write price.
 */
export type PromptCacheWrites = 'none' | '5m' | '1h';
