import { z } from 'zod';
import type { ReasoningField } from './returnedReasoning.ts';
import { chatThinkingOf, contentOf } from './contentParts.ts';
import type { TokenUsage } from '../../contracts/usage.ts';
import type { SseEvent } from '../sse.ts';
import { eventJson } from '../sse.ts';
import { usageFromChatChunk, usageFromChatResponse } from './usage.ts';
import { isRecord } from '../../core/isRecord.ts';
import { finishReasonOf } from './finishReason.ts';
import { thoughtSignatureOf } from './thoughtSignature.ts';
import { relayThinkingOf, type RelayThinking } from './relayThinking.ts';

/**
 * Lenient readers for what a Chat Completions upstream sends back. Unknown fields are ignored;
 * only a shape that cannot carry a reply at all is refused.
 */

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.union([z.string(), z.array(z.unknown())]).nullish(),
          reasoning_content: z.string().nullish(),
          reasoning: z.string().nullish(),
          refusal: z.string().nullish(),
          thinking_blocks: z.array(z.unknown()).nullish(),
          reasoning_details: z.array(z.unknown()).nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().nullish(),
                function: z.object({ name: z.string(), arguments: z.unknown() }),
                extra_content: z.unknown().optional(),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
        stop_reason: z.unknown().optional(),
      }),
    )
    .min(1),
});

export interface ToolCallDelta {
  /** The upstream's `index`; null when the upstream omits it. */
  index: number | null;
  id: string | null;
  name: string | null;
  argumentsPiece: string | null;
  /** Gemini's signature of the call (thoughtSignature.ts), on the piece that carries it. */
  thoughtSignature: string | null;
}

export interface ChatChunkReading {
  textDelta: string | null;
  /** A reasoning model's thinking: `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, newer vLLM). */
  reasoningDelta: string | null;
  /** Which of the two it came in: null when the chunk has no thinking. */
  reasoningField: ReasoningField | null;
  /** Pieces of a relay's thinking blocks (relayThinking.ts), the signatures among them. */
  relayThinking: RelayThinking | null;
  /** The model declining (OpenAI's `refusal`), streamed instead of `content`. */
  refusalDelta: string | null;
  toolCallDeltas: ToolCallDelta[];
  finishReason: string | null;
  /** The stop sequence that ended the answer, where the gateway names it (stopSequenceOf). */
  stopSequence: string | null;
  usage: TokenUsage | null;
  /** Set when the chunk is an upstream error event or not a readable chunk: the stream has failed. */
  errorMessage: string | null;
}

export interface ChatCompletionReading {
  text: string;
  /** The model's refusal (OpenAI's `message.refusal`), '' when it sent none. */
  refusal: string;
  /** The model's thinking, '' when it sent none. */
  reasoning: string;
  reasoningField: ReasoningField | null;
  /** The same thinking as a relay's blocks, with their signatures (relayThinking.ts); null when it sent none. */
  relayThinking: RelayThinking | null;
  /**
   * `id` is null where the gateway gave none or an empty one (llama.cpp's server: ggml-org/llama.cpp#11992):
   * the translator names the call, as it names a streamed one.
   */
  toolCalls: { id: string | null; name: string; arguments: string; thoughtSignature: string | null }[];
  finishReason: string | null;
  stopSequence: string | null;
  usage: TokenUsage | null;
}

const EMPTY_READING: ChatChunkReading = {
  textDelta: null,
  reasoningDelta: null,
  reasoningField: null,
  relayThinking: null,
  refusalDelta: null,
  toolCallDeltas: [],
  finishReason: null,
  stopSequence: null,
  usage: null,
  errorMessage: null,
};

/**
 * Chat's finish_reason `stop` covers a stop sequence and the model's own end alike; vLLM names the
 * stop string that matched in the choice's `stop_reason` (null for the end token, a number for a
 * stop token id: vllm/entrypoints/openai/protocol.py, ChatCompletionResponseChoice).
 */
function stopSequenceOf(choice: Record<string, unknown> | undefined): string | null {
  if (choice?.['finish_reason'] !== 'stop') return null;
  const matched = choice['stop_reason'];
  return typeof matched === 'string' && matched !== '' ? matched : null;
}

type Json = Record<string, unknown>;
const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * A tool call's arguments (or a streamed piece of them) as text, null when it has none. Hugging
 * Face TGI and llama.cpp's server give them as the JSON object itself rather than its text
 * (huggingface/text-generation-inference#2461, ggml-org/llama.cpp#20198).
 */
export function toolArgumentsText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return isRecord(value) ? JSON.stringify(value) : null;
}
/** DashScope and GLM repeat a tool call's `id` and `name` as "" on every continuation delta: no new call, no new name. */
const nonEmptyOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

type ReadEvent = SseEvent & { chatReading?: ChatChunkReading | null };

/** The event's chunk reading, made once for the observer and the translator (null: not a JSON object). */
export function chatChunkOf(event: SseEvent): ChatChunkReading | null {
  const read = event as ReadEvent;
  if (read.chatReading !== undefined) return read.chatReading;
  const json = eventJson(event);
  read.chatReading = json === null ? null : readChatChunk(json);
  return read.chatReading;
}

/**
 * Reads one parsed chunk, leniently: unknown fields are ignored, a field of the wrong type reads as
 * absent. Only the first choice is read: the translated protocols have no `n`. A hand reader, not a
 * schema: it runs once per streamed event, on the value the observer already parsed.
 */
export function readChatChunk(chunk: Json): ChatChunkReading {
  const error = chunk.error;
  if (error !== undefined && error !== null) {
    return { ...EMPTY_READING, errorMessage: `the upstream reported an error mid-stream: ${upstreamErrorText(error)}` };
  }
  const choices = chunk.choices;
  if (choices !== undefined && choices !== null && !Array.isArray(choices)) {
    return { ...EMPTY_READING, errorMessage: 'the upstream sent a stream chunk that is not a chat completion chunk' };
  }
  const choice = (choices ?? []).find((candidate: unknown) => isRecord(candidate) && (candidate.index ?? 0) === 0) as Json | undefined;
  const delta = isRecord(choice?.delta) ? choice.delta : null;
  const calls = Array.isArray(delta?.tool_calls) ? delta.tool_calls : [];
  const thinking = chatThinkingOf(delta);
  return {
    textDelta: contentOf(delta?.content).text,
    reasoningDelta: thinking?.text ?? null,
    reasoningField: thinking?.field ?? null,
    relayThinking: relayThinkingOf(delta),
    refusalDelta: stringOrNull(delta?.refusal),
    toolCallDeltas: calls.filter(isRecord).map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return {
        index: typeof call.index === 'number' && Number.isInteger(call.index) && call.index >= 0 ? call.index : null,
        id: nonEmptyOrNull(call.id),
        name: nonEmptyOrNull(fn.name),
        argumentsPiece: toolArgumentsText(fn.arguments),
        thoughtSignature: thoughtSignatureOf(call),
      };
    }),
    finishReason: finishReasonOf(choice?.finish_reason),
    stopSequence: stopSequenceOf(choice),
    usage: usageFromChatChunk(chunk),
    errorMessage: null,
  };
}

export function readChatCompletion(json: unknown): ChatCompletionReading | null {
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) return null;
  const [choice] = parsed.data.choices;
  if (!choice) return null;
  const thinking = chatThinkingOf(choice.message);
  return {
    text: contentOf(choice.message.content).text ?? '',
    refusal: choice.message.refusal ?? '',
    reasoning: thinking?.text ?? '',
    reasoningField: thinking?.field ?? null,
    relayThinking: relayThinkingOf(choice.message),
    toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
      id: nonEmptyOrNull(call.id),
      name: call.function.name,
      arguments: toolArgumentsText(call.function.arguments) ?? '',
      thoughtSignature: thoughtSignatureOf(call),
    })),
    finishReason: finishReasonOf(choice.finish_reason),
    stopSequence: stopSequenceOf(choice),
    // Read as it is billed, so a translated client is shown the counts it is charged for.
    usage: usageFromChatResponse(json),
  };
}

/**
 * A whole completion as the one stream chunk it amounts to (its first choice and usage), for a
 * client that asked to stream from a gateway that answered whole. Null when it carries no reply.
 */
export function completionAsChunk(json: unknown): Json | null {
  const reply = readChatCompletion(json);
  if (reply === null) return null;
  const toolCalls = reply.toolCalls.map((call, index) => ({
    index,
    ...(call.id === null ? {} : { id: call.id }),
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
    ...(call.thoughtSignature === null ? {} : { extra_content: { google: { thought_signature: call.thoughtSignature } } }),
  }));
  // The thinking keeps the field it came in: that decides whether it may go back (returnedReasoning.ts).
  const delta = {
    content: reply.text,
    [reply.reasoningField ?? 'reasoning_content']: reply.reasoning,
    ...(reply.relayThinking === null ? {} : { [reply.relayThinking.field]: reply.relayThinking.blocks }),
    ...(reply.refusal === '' ? {} : { refusal: reply.refusal }),
    tool_calls: toolCalls,
  };
  // The answer is whole by definition: one without a finish_reason still finished.
  const choice = {
    index: 0,
    delta,
    finish_reason: reply.finishReason ?? 'stop',
    ...(reply.stopSequence === null ? {} : { stop_reason: reply.stopSequence }),
  };
  return { choices: [choice], usage: (json as { usage?: unknown }).usage ?? null };
}

function upstreamErrorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return 'no message';
}
