import { tokenEstimator } from '../spend/tokenEstimator.ts';
import type { ClientBody } from './requestBody.ts';

/**
 * `POST /v1/messages/count_tokens` has no Chat Completions counterpart: when Messages is
 * translated, it is answered here from the tokenizer's estimate, which reads Anthropic bodies
 * directly (system, blocks, tools).
 */
export async function answerCountTokens(body: ClientBody): Promise<object> {
  return { input_tokens: await tokenEstimator.chatInputTokens(body.chunks, body.byteLength) };
}
