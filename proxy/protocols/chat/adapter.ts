import type { DeclaredError, ProtocolAdapter } from '../adapter.ts';
import { errorMemberOf } from '../declaredError.ts';
import { modelOf, tokenLimitOf } from '../fields.ts';
import { choiceErrorOf } from './choiceError.ts';
import { ChatKeyGuard } from './keyGuard.ts';
import { maskLogprobTokens } from './logprobTokens.ts';
import { openAiErrors } from './errors.ts';
import { completionAsStream } from './completionAsStream.ts';
import { ChatStreamObserver } from './observer.ts';
import { completionOfStream } from './streamAsCompletion.ts';
import { usageFromChatResponse, usageWithStatedPrice } from './usage.ts';

/** Chat Completions: the protocol every gateway speaks (docs/gateway-spec.md §1), and the one the others translate to. */
export const chatAdapter: ProtocolAdapter = {
  name: 'openai',
  endpoints: { 'chat/completions': 'generate' },
  errors: openAiErrors,
  stream: {
    observer: (sink, options) => new ChatStreamObserver(sink, options),
    keyGuard: (masker) => new ChatKeyGuard(masker),
    wholeAnswer: completionOfStream,
    answerAsStream: completionAsStream,
  },
  readAnswer: (json, _endpoint, headers) => ({
    usage: usageWithStatedPrice(usageFromChatResponse(json), headers),
    model: modelOf(json),
    error: chatAnswerErrorOf(json),
  }),
  maskJoinedFields: maskLogprobTokens,
  outputTokenLimit: chatOutputTokenLimit,
};

/** `max_completion_tokens` replaced `max_tokens`; a body naming both is bounded by the larger. Each of `n` choices may use it all. */
function chatOutputTokenLimit(body: Record<string, unknown>): number | null {
  const limits = [tokenLimitOf(body['max_completion_tokens']), tokenLimitOf(body['max_tokens'])].filter((limit) => limit !== null);
  if (limits.length === 0) return null;
  return Math.max(...limits) * Math.max(tokenLimitOf(body['n']) ?? 1, 1);
}

/**
 * A chat answer without a choice, holding an `error` (OpenRouter, One API before mid-2023: see
 * declaredError.ts), or one whose choice ended with an error of its own (choiceError.ts).
 */
function chatAnswerErrorOf(json: object): DeclaredError | null {
  const { choices } = json as { choices?: unknown };
  if (Array.isArray(choices) && choices.length > 0) return choiceErrorOf(choices);
  return errorMemberOf(json as Record<string, unknown>);
}
