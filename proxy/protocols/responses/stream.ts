import { createChatStreamBlocks } from '../chat/chatStreamBlocks.ts';
import type { BlockEvent } from '../chat/chatStreamBlocks.ts';
import { sseFrame } from '../sse.ts';
import { STREAM_ENDED_EARLY_MESSAGE } from '../streamTranslator.ts';
import type { ChatStreamTranslator, StreamFailure } from '../streamTranslator.ts';
import {
  functionCallArguments,
  isCustomToolCall,
  isToolSearchCall,
  outputItem,
  outputItemId,
  outputTextPart,
  reasoningSummaryPart,
  refusalPart,
  responseEnding,
  responseSnapshot,
} from './output.ts';
import type { ResponseSnapshotInput } from './output.ts';
import type { ClientToolNames } from '../requestResult.ts';
import type { AnswerSource } from '../chat/relayThinking.ts';
import { calledTool } from './namespacedTools.ts';
import { customToolInput } from './customTools.ts';

/** What a block's item is, found once at its start: its pieces (a tool's arguments come a few characters each) only look it up. */
interface ItemShape {
  itemId: string;
  customCall: boolean;
  toolSearch: boolean;
}

/**
 * Chat Completions stream chunks -> Responses API SSE frames, as Codex CLI reads them. Every
 * event carries `type` and a rising `sequence_number`. The stream ends with response.completed
 * (or response.incomplete for a length / content-filter stop) only after the upstream finished;
 * fail() ends it with response.failed, whose `error.code` is the failure's `type`.
 */
/**
 * What a chat answer's translation into a Responses answer is told, streamed or whole. Its source
 * (the gateway and the model Airlock asked it for) is named in a reasoning item's mark
 * (returnedReasoning.ts) and a relay's signed thinking's (relayThinking.ts).
 */
export interface ResponsesTranslationOptions extends AnswerSource {
  requestedModel: string;
  responseId: string;
  createdAtSec?: number;
  /** The request's tools chat could not name as the client does (namespacedTools.ts). */
  clientToolNames?: ClientToolNames;
}

export function createResponsesStreamTranslator(options: ResponsesTranslationOptions): ChatStreamTranslator {
  const clientToolNames = options.clientToolNames ?? {};
  const blocks = createChatStreamBlocks(`call_${options.responseId}`, options.gatewayTag);
  const createdAtSec = options.createdAtSec ?? Math.floor(Date.now() / 1000);
  const completedItems: Record<string, unknown>[] = [];
  let sequenceNumber = 0;
  let started = false;
  let ended = false;

  function frame(type: string, fields: Record<string, unknown>): string {
    return sseFrame(type, { type, sequence_number: sequenceNumber++, ...fields });
  }

  function snapshot(fields: Pick<ResponseSnapshotInput, 'status'> & Partial<ResponseSnapshotInput>): Record<string, unknown> {
    return responseSnapshot({
      responseId: options.responseId,
      requestedModel: options.requestedModel,
      createdAtSec,
      output: [],
      ...fields,
    });
  }

  function start(): string[] {
    if (started) return [];
    started = true;
    const response = snapshot({ status: 'in_progress' });
    return [frame('response.created', { response }), frame('response.in_progress', { response })];
  }

  const shapes = new Map<number, ItemShape>();
  function shapeOf(block: BlockEvent['block']): ItemShape {
    let shape = shapes.get(block.position);
    if (shape === undefined) {
      const customCall = isCustomToolCall(block, clientToolNames);
      const toolSearch = !customCall && isToolSearchCall(block, clientToolNames);
      shape = { itemId: outputItemId(options.responseId, block, clientToolNames), customCall, toolSearch };
      shapes.set(block.position, shape);
    }
    return shape;
  }

  function render(event: BlockEvent): string[] {
    const block = event.block;
    const output_index = block.position;
    const shape = shapeOf(block);
    const item_id = shape.itemId;
    if (event.type === 'start') {
      const added = frame('response.output_item.added', {
        output_index,
        item: outputItem(options.responseId, block, 'in_progress', clientToolNames, options),
      });
      if (block.kind === 'tool') return [added];
      if (block.kind === 'reasoning') {
        return [
          added,
          frame('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part: reasoningSummaryPart('') }),
        ];
      }
      const part = block.kind === 'refusal' ? refusalPart('') : outputTextPart('');
      return [added, frame('response.content_part.added', { item_id, output_index, content_index: 0, part })];
    }
    if (event.type === 'delta') {
      // A custom call's pieces are of the JSON around its text: the text goes at the end, whole (doneFrames).
      // A tool search's arguments are an object, given whole in its item only.
      if (shape.customCall || shape.toolSearch) return [];
      if (block.kind === 'tool') return [frame('response.function_call_arguments.delta', { item_id, output_index, delta: event.piece })];
      if (block.kind === 'reasoning') {
        return [frame('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: event.piece })];
      }
      if (block.kind === 'refusal')
        return [frame('response.refusal.delta', { item_id, output_index, content_index: 0, delta: event.piece })];
      return [frame('response.output_text.delta', { item_id, output_index, content_index: 0, delta: event.piece, logprobs: [] })];
    }
    // Frames are built in the order they are written: sequence numbers are taken as they are built.
    const item = outputItem(options.responseId, block, 'completed', clientToolNames, options);
    completedItems.push(item);
    return [...doneFrames(block, shape, output_index), frame('response.output_item.done', { output_index, item })];
  }

  function doneFrames(block: BlockEvent['block'], shape: ItemShape, output_index: number): string[] {
    const item_id = shape.itemId;
    if (block.kind === 'tool' && shape.customCall) {
      const input = customToolInput(block.arguments);
      const inputDelta = input === '' ? [] : [frame('response.custom_tool_call_input.delta', { item_id, output_index, delta: input })];
      return [...inputDelta, frame('response.custom_tool_call_input.done', { item_id, output_index, input })];
    }
    if (shape.toolSearch) return [];
    if (block.kind === 'tool') {
      const { name } = calledTool(clientToolNames, block.name);
      const callArguments = functionCallArguments(block.arguments);
      // Clients that join the deltas get what the done event says.
      const rest =
        callArguments === block.arguments
          ? []
          : [frame('response.function_call_arguments.delta', { item_id, output_index, delta: callArguments })];
      return [...rest, frame('response.function_call_arguments.done', { item_id, output_index, name, arguments: callArguments })];
    }
    if (block.kind === 'reasoning') {
      const part = { item_id, output_index, summary_index: 0 };
      return [
        frame('response.reasoning_summary_text.done', { ...part, text: block.text }),
        frame('response.reasoning_summary_part.done', { ...part, part: reasoningSummaryPart(block.text) }),
      ];
    }
    const part = { item_id, output_index, content_index: 0 };
    if (block.kind === 'refusal') {
      return [
        frame('response.refusal.done', { ...part, refusal: block.text }),
        frame('response.content_part.done', { ...part, part: refusalPart(block.text) }),
      ];
    }
    return [
      frame('response.output_text.done', { ...part, text: block.text, logprobs: [] }),
      frame('response.content_part.done', { ...part, part: outputTextPart(block.text) }),
    ];
  }

  function fail(error: StreamFailure): string[] {
    if (ended) return [];
    ended = true;
    const response = snapshot({ status: 'failed', output: completedItems, error: { code: error.type, message: error.message } });
    return [...start(), frame('response.failed', { response })];
  }

  return {
    push(reading) {
      if (ended) return [];
      if (reading.errorMessage !== null) return fail({ type: 'server_error', message: reading.errorMessage });
      return [...start(), ...blocks.apply(reading).flatMap(render)];
    },
    finish(unreportedUsage = null) {
      if (ended) return [];
      const finishReason = blocks.finishReason();
      if (finishReason === null) return fail({ type: 'server_error', message: STREAM_ENDED_EARLY_MESSAGE });
      ended = true;
      const frames = [...start(), ...blocks.closeAll().flatMap(render)];
      const ending = responseEnding(finishReason);
      const response = snapshot({ ...ending, output: completedItems, usage: blocks.usage() ?? unreportedUsage });
      frames.push(frame(ending.status === 'completed' ? 'response.completed' : 'response.incomplete', { response }));
      return frames;
    },
    fail,
    hasFinishReason: () => blocks.finishReason() !== null,
  };
}
