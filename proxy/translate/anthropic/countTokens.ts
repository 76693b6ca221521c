import { estimateChatInputTokens } from '../../billing/estimate.ts';

/**
 * `POST /v1/messages/count_tokens` answered locally from the tokenizer estimate (the upstream
 * has no such endpoint). The estimator reads Anthropic bodies directly: system, blocks, tools.
 */
export function countTokensResponse(body: unknown): { input_tokens: number } {
  return { input_tokens: estimateChatInputTokens(body) };
}
