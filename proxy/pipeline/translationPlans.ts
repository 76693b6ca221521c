import type { ProtocolModeSetting } from '../contracts/profile.ts';
import type { ClientBody } from './requestBody.ts';
import { tokenEstimator } from '../billing/tokenEstimator.ts';
import { anthropicToChatRequest } from '../translate/anthropic/request.ts';
import { chatToAnthropicResponse, newAnthropicMessageId } from '../translate/anthropic/response.ts';
import { createAnthropicStreamTranslator } from '../translate/anthropic/stream.ts';
import { responsesToChatRequest } from '../translate/responses/request.ts';
import { chatToResponsesResponse, newResponseId } from '../translate/responses/response.ts';
import { createResponsesStreamTranslator } from '../translate/responses/stream.ts';
import type { ResponseTranslator } from './plan.ts';

/** What a client protocol needs from the gateway: native pass-through, or Chat Completions and back. */
export interface Translation {
  chatBody: Record<string, unknown>;
  stream: boolean;
  notes: string[];
  translator: ResponseTranslator;
}

export type TranslationResult = { ok: true; translation: Translation } | { ok: false; status: 400; message: string };

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

export function translateAnthropic(body: unknown, requestedModel: string, upstreamModel: string): TranslationResult {
  const request = anthropicToChatRequest(body, { upstreamModel, includeUsage: true });
  if (!request.ok) return request;
  const translator: ResponseTranslator = {
    createStream: () => createAnthropicStreamTranslator({ requestedModel, messageId: newAnthropicMessageId() }),
    translateJson: (chatJson) => unwrap(chatToAnthropicResponse(chatJson, { requestedModel })) as object,
  };
  return { ok: true, translation: { chatBody: request.chatBody as Record<string, unknown>, stream: request.stream, notes: request.notes, translator } };
}

export function translateResponses(body: unknown, requestedModel: string, upstreamModel: string): TranslationResult {
  const request = responsesToChatRequest(body, { upstreamModel, includeUsage: true });
  if (!request.ok) return request;
  const translator: ResponseTranslator = {
    createStream: () => createResponsesStreamTranslator({ requestedModel, responseId: newResponseId() }),
    translateJson: (chatJson) => unwrap(chatToResponsesResponse(chatJson, { requestedModel, responseId: newResponseId() })) as object,
  };
  return { ok: true, translation: { chatBody: request.chatBody as Record<string, unknown>, stream: request.stream, notes: request.notes, translator } };
}

/**
 * `POST /v1/messages/count_tokens` has no Chat Completions counterpart: it is answered here from
 * the tokenizer's estimate, which reads Anthropic bodies directly (system, blocks, tools).
 */
export async function answerCountTokens(body: ClientBody): Promise<object> {
  return { input_tokens: await tokenEstimator.chatInputTokens(body.chunks, body.byteLength) };
}
