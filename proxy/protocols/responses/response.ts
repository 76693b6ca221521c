import { randomUUID } from 'node:crypto';
import type { TokenUsage } from '../../contracts/usage.ts';
import { readChatCompletion } from '../chat/chatShapes.ts';
import type { StreamBlock } from '../chat/chatStreamBlocks.ts';
import type { ResponsesTranslationOptions } from './stream.ts';
import { outputItem, responseEnding, responseSnapshot } from './output.ts';
import { clientCallId } from '../chat/thoughtSignature.ts';
import { signedRelayThinking } from '../chat/relayThinking.ts';

/** Chat Completions reply -> Responses API reply (the non-streaming form). */

export type ResponsesResponseTranslation =
  | { ok: true; body: Record<string, unknown>; usage: TokenUsage | null }
  | { ok: false; message: string };

export function newResponseId(): string {
  return `resp_${randomUUID().replaceAll('-', '')}`;
}

export function chatToResponsesResponse(
  chatJson: unknown,
  options: ResponsesTranslationOptions & {
    /** Stated where the gateway stated no usage (adapter.ts, translateJson). */
    unreportedUsage?: TokenUsage | null;
  },
): ResponsesResponseTranslation {
  const reply = readChatCompletion(chatJson);
  if (reply === null) return { ok: false, message: 'the upstream reply has no choices to translate' };
  const blocks: StreamBlock[] = [];
  const relayThinking = signedRelayThinking(reply.relayThinking);
  if (reply.reasoning !== '' || relayThinking !== null) {
    const field = reply.reasoningField ?? 'reasoning_content';
    blocks.push({ position: 0, kind: 'reasoning', text: reply.reasoning, field, ...(relayThinking === null ? {} : { relayThinking }) });
  }
  if (reply.text !== '') blocks.push({ position: blocks.length, kind: 'text', text: reply.text });
  if (reply.refusal !== '') blocks.push({ position: blocks.length, kind: 'refusal', text: reply.refusal });
  for (const call of reply.toolCalls) {
    // A call without an id is named as a streamed one is (stream.ts).
    const callId = clientCallId(call.id ?? `call_${options.responseId}_${blocks.length}`, call.thoughtSignature, options.gatewayTag);
    blocks.push({ position: blocks.length, kind: 'tool', callId, name: call.name, arguments: call.arguments });
  }
  const ending = responseEnding(reply.finishReason);
  const body = responseSnapshot({
    responseId: options.responseId,
    requestedModel: options.requestedModel,
    createdAtSec: options.createdAtSec ?? Math.floor(Date.now() / 1000),
    status: ending.status,
    incompleteReason: ending.incompleteReason,
    output: blocks.map((block) => outputItem(options.responseId, block, 'completed', options.clientToolNames ?? {}, options)),
    usage: reply.usage ?? options.unreportedUsage ?? null,
  });
  return { ok: true, body, usage: reply.usage };
}
