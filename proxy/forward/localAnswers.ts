import { tokenEstimator } from '../spend/tokenEstimator.ts';
import type { ClientBody } from './requestBody.ts';

/**
 * A count endpoint (Anthropic's `count_tokens`) has no Chat Completions counterpart: when its
 * protocol is translated, it is answered here from the tokenizer's estimate, which reads the
 * client's body directly (system, blocks, tools), in the shape the protocol's adapter gives.
 */
export async function answerCount(body: ClientBody, countAnswer: (inputTokens: number) => object): Promise<object> {
  return countAnswer(await tokenEstimator.chatInputTokens(body.chunks, body.byteLength));
}
