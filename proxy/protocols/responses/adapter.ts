import type { ProtocolAdapter } from '../adapter.ts';
import { modelOf, tokenLimitOf } from '../fields.ts';
import { responsesAnswerErrorOf } from './declaredError.ts';
import { fromChatEvents } from '../streamTranslator.ts';
import { responsesErrors, responsesFailureCode } from './errors.ts';
import { ResponsesKeyGuard } from './keyGuard.ts';
import { responsesNativeRequest } from './nativeRequest.ts';
import { ResponsesStreamObserver } from './observer.ts';
import { responsesToChatRequest } from './request.ts';
import { chatToResponsesResponse, newResponseId } from './response.ts';
import { createResponsesStreamTranslator } from './stream.ts';
import { responseAsStream, responseOfStream } from './streamAsAnswer.ts';
import { responsesUsageOf } from './usage.ts';

/** The Responses API (Codex CLI, the OpenAI SDK's responses), native or translated to Chat Completions. */
export const responsesAdapter: ProtocolAdapter = {
  name: 'responses',
  endpoints: { responses: 'generate' },
  errors: responsesErrors,
  stream: {
    observer: (sink) => new ResponsesStreamObserver(sink),
    keyGuard: (masker) => new ResponsesKeyGuard(masker),
    wholeAnswer: responseOfStream,
    answerAsStream: responseAsStream,
  },
  readAnswer: (json) => ({
    usage: responsesUsageOf((json as { usage?: unknown }).usage),
    model: modelOf(json),
    error: responsesAnswerErrorOf(json as Record<string, unknown>),
  }),
  nativeRequest: responsesNativeRequest,
  // Reasoning tokens included.
  outputTokenLimit: (body) => tokenLimitOf(body['max_output_tokens']),
  translation: {
    modeKey: 'responses',
    clientHeaderPrefixes: [],
    toChatRequest: responsesToChatRequest,
    responseTranslator: (requestedModel, clientToolNames, source) => ({
      createStream: () =>
        fromChatEvents(createResponsesStreamTranslator({ requestedModel, responseId: newResponseId(), clientToolNames, ...source })),
      translateJson: (chatJson, unreportedUsage) => {
        const responseId = newResponseId();
        const result = chatToResponsesResponse(chatJson, { requestedModel, responseId, clientToolNames, ...source, unreportedUsage });
        if (!result.ok) throw new Error(result.message);
        return result.body;
      },
      streamFailure: (errorClass, _upstreamStatus, said, message) => ({ type: responsesFailureCode(errorClass, said), message }),
    }),
  },
};
