import type { ProtocolAdapter } from '../adapter.ts';
import { modelOf, tokenLimitOf } from '../fields.ts';
import { anthropicErrorOf } from './declaredError.ts';
import { fromChatEvents } from '../streamTranslator.ts';
import { anthropicErrors, anthropicErrorType, anthropicStatusFor, withPromptTooLong } from './errors.ts';
import { promptTooLongWords } from './promptTooLong.ts';
import { anthropicNativeRequest } from './nativeRequest.ts';
import { AnthropicKeyGuard } from './keyGuard.ts';
import { AnthropicStreamObserver } from './observer.ts';
import { messageAsStream, messageOfStream } from './streamAsAnswer.ts';
import { anthropicToChatRequest } from './request.ts';
import { chatToAnthropicResponse, newAnthropicMessageId } from './response.ts';
import { createAnthropicStreamTranslator } from './stream.ts';
import { anthropicUsageOf } from './usage.ts';

/** Anthropic Messages (Claude Code, the Anthropic SDK), native or translated to Chat Completions. */
export const anthropicAdapter: ProtocolAdapter = {
  name: 'anthropic',
  endpoints: { messages: 'generate', 'messages/count_tokens': 'count' },
  errors: anthropicErrors,
  stream: {
    observer: (sink) => new AnthropicStreamObserver(sink),
    keyGuard: (masker) => new AnthropicKeyGuard(masker),
    wholeAnswer: messageOfStream,
    answerAsStream: messageAsStream,
  },
  // A count runs no model and Anthropic does not bill it: it is recorded as using no tokens.
  readAnswer: (json, endpoint) => ({
    usage: endpoint === 'count' ? { inputTokens: 0, outputTokens: 0 } : anthropicUsageOf((json as { usage?: unknown }).usage),
    model: modelOf(json),
    error: anthropicErrorOf(json as Record<string, unknown>),
  }),
  nativeRequest: anthropicNativeRequest,
  // Required by Anthropic, and it includes extended thinking.
  outputTokenLimit: (body) => tokenLimitOf(body['max_tokens']),
  translation: {
    modeKey: 'messages',
    // anthropic-version, anthropic-beta: meaningless to a Chat Completions gateway.
    clientHeaderPrefixes: ['anthropic-'],
    countAnswer: (inputTokens) => ({ input_tokens: inputTokens }),
    toChatRequest: anthropicToChatRequest,
    responseTranslator: (requestedModel, _clientToolNames, source) => ({
      createStream: () =>
        fromChatEvents(createAnthropicStreamTranslator({ requestedModel, messageId: newAnthropicMessageId(), ...source })),
      translateJson: (chatJson, unreportedUsage) =>
        unwrap(chatToAnthropicResponse(chatJson, { requestedModel, ...source, unreportedUsage })),
      // Claude Code retries an error event only when its type is overloaded_error: mid-stream it has no status.
      // A context overflow is led by Anthropic's words for it, as in an error answer (promptTooLong.ts).
      streamFailure: (errorClass, upstreamStatus, said, message) => ({
        type: anthropicErrorType(anthropicStatusFor(errorClass, upstreamStatus)),
        message: withPromptTooLong(promptTooLongWords(errorClass, said), message),
      }),
    }),
  },
};

function unwrap(result: { ok: true; body: object } | { ok: false; message: string }): object {
  if (!result.ok) throw new Error(result.message);
  return result.body;
}
