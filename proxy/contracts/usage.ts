/** Token usage in the gateway's terms; optional fields only where the upstream reports them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

/** Which wire protocol the client spoke, and whether Airlock translated it to Chat Completions. */
export type ClientProtocol = 'openai' | 'anthropic' | 'responses';
export type ProtocolMode = 'native' | 'translate';
