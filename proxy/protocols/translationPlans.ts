import type { ProtocolModeSetting } from '../contracts/profile.ts';
import type { ClientBody } from '../forward/requestBody.ts';
import { tokenEstimator } from '../spend/tokenEstimator.ts';
import { chatToAnthropicResponse, newAnthropicMessageId } from './anthropic/response.ts';
import { createAnthropicStreamTranslator } from './anthropic/stream.ts';
import { chatToResponsesResponse, newResponseId } from './responses/response.ts';
import { createResponsesStreamTranslator } from './responses/stream.ts';
import type { ResponseTranslator } from '../forward/plan.ts';
import type { TranslatedProtocol } from '../forward/translation/translationJob.ts';

/**
 * `auto` means translate until the capability check has shown the gateway speaks the protocol for
 * this model: the gateway contract promises Chat Completions only (docs/gateway-spec.md §1, §4.3).
 */
export function chooseMode(setting: ProtocolModeSetting, nativeVerified: boolean): 'native' | 'translate' {
  if (setting === 'native') return 'native';
  if (setting === 'translate') return 'translate';
  return nativeVerified ? 'native' : 'translate';
}

function unwrap<Body>(result: { ok: true; body: Body } | { ok: false; message: string }): Body {
  if (!result.ok) throw new Error(result.message);
  return result.body;
}

/** Turns the gateway's answers back into the client's protocol; it needs only the model the client asked for. */
export function responseTranslatorFor(protocol: TranslatedProtocol, requestedModel: string): ResponseTranslator {
  if (protocol === 'messages') {
    return {
      createStream: () => createAnthropicStreamTranslator({ requestedModel, messageId: newAnthropicMessageId() }),
      translateJson: (chatJson) => unwrap(chatToAnthropicResponse(chatJson, { requestedModel })) as object,
    };
  }
  return {
    createStream: () => createResponsesStreamTranslator({ requestedModel, responseId: newResponseId() }),
    translateJson: (chatJson) => unwrap(chatToResponsesResponse(chatJson, { requestedModel, responseId: newResponseId() })) as object,
  };
}

/**
 * `POST /v1/messages/count_tokens` has no Chat Completions counterpart: it is answered here from
 * the tokenizer's estimate, which reads Anthropic bodies directly (system, blocks, tools).
 */
export async function answerCountTokens(body: ClientBody): Promise<object> {
  return { input_tokens: await tokenEstimator.chatInputTokens(body.chunks, body.byteLength) };
}
