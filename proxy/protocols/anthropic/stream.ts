import { createChatStreamBlocks } from '../chat/chatStreamBlocks.ts';
import { type AnswerSource, thinkingMark } from '../chat/relayThinking.ts';
import type { BlockEvent } from '../chat/chatStreamBlocks.ts';
import { sseFrame } from '../sse.ts';
import { STREAM_ENDED_EARLY_MESSAGE } from '../streamTranslator.ts';
import type { ChatStreamTranslator, StreamFailure } from '../streamTranslator.ts';
import { anthropicStop, anthropicUsage } from './response.ts';

/**
 * Chat Completions stream chunks -> Anthropic Messages SSE frames. Each method returns complete
 * frames to write in order. The usage chunk (include_usage) comes after the finish_reason chunk,
 * so `message_delta` with stop_reason and usage is written by finish(), at the upstream's end.
 */
/** `gatewayTag` and `upstreamModel`: who answers, named in a thinking block's mark (returnedReasoning.ts, relayThinking.ts). */
export function createAnthropicStreamTranslator(
  options: { requestedModel: string; messageId: string } & AnswerSource,
): ChatStreamTranslator {
  const blocks = createChatStreamBlocks(`toolu_${options.messageId}`, options.gatewayTag);
  let started = false;
  let ended = false;
  let stopSequence: string | null = null;

  function start(): string[] {
    if (started) return [];
    started = true;
    const message = {
      id: options.messageId,
      type: 'message',
      role: 'assistant',
      model: options.requestedModel,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return [sseFrame('message_start', { type: 'message_start', message })];
  }

  function fail(error: StreamFailure): string[] {
    if (ended) return [];
    ended = true;
    return [sseFrame('error', { type: 'error', error: { type: error.type, message: error.message } })];
  }

  return {
    push(reading) {
      if (ended) return [];
      if (reading.errorMessage !== null) return fail({ type: 'api_error', message: reading.errorMessage });
      if (reading.stopSequence !== null) stopSequence = reading.stopSequence;
      return [...start(), ...blocks.apply(reading).flatMap((event) => renderBlockEvent(event, options))];
    },
    finish(unreportedUsage = null) {
      if (ended) return [];
      const finishReason = blocks.finishReason();
      if (finishReason === null) return fail({ type: 'api_error', message: STREAM_ENDED_EARLY_MESSAGE });
      ended = true;
      const frames = [...start(), ...blocks.closeAll().flatMap((event) => renderBlockEvent(event, options))];
      const delta = anthropicStop(finishReason, blocks.hasToolCalls(), stopSequence);
      frames.push(sseFrame('message_delta', { type: 'message_delta', delta, usage: anthropicUsage(blocks.usage() ?? unreportedUsage) }));
      frames.push(sseFrame('message_stop', { type: 'message_stop' }));
      return frames;
    },
    fail,
    hasFinishReason: () => blocks.finishReason() !== null,
  };
}

function renderBlockEvent(event: BlockEvent, source: AnswerSource): string[] {
  const index = event.block.position;
  const block = event.block;
  if (event.type === 'start') {
    return [sseFrame('content_block_start', { type: 'content_block_start', index, content_block: emptyContentBlock(block) })];
  }
  if (event.type === 'delta') {
    const delta =
      block.kind === 'tool'
        ? { type: 'input_json_delta', partial_json: event.piece }
        : block.kind === 'reasoning'
          ? { type: 'thinking_delta', thinking: event.piece }
          : { type: 'text_delta', text: event.piece };
    return [sseFrame('content_block_delta', { type: 'content_block_delta', index, delta })];
  }
  const stop = sseFrame('content_block_stop', { type: 'content_block_stop', index });
  if (block.kind !== 'reasoning') return [stop];
  // As Anthropic sends a thinking block's signature: one delta just before the block stops.
  const signature = { type: 'signature_delta', signature: thinkingMark(block.field, block.relayThinking, source) };
  return [sseFrame('content_block_delta', { type: 'content_block_delta', index, delta: signature }), stop];
}

/**
 * A chat model's thinking becomes a thinking block whose signature is no Anthropic one: Airlock's
 * mark of where its thinking came from (returnedReasoning.ts), or the relay's own signed blocks
 * (relayThinking.ts), sent at its end.
 * A refusal is text: Anthropic has no refusal block (its `refusal` stop reason is a classifier's, not the model's words).
 */
function emptyContentBlock(block: BlockEvent['block']): Record<string, unknown> {
  if (block.kind === 'tool') return { type: 'tool_use', id: block.callId, name: block.name, input: {} };
  return block.kind === 'reasoning' ? { type: 'thinking', thinking: '', signature: '' } : { type: 'text', text: '' };
}
