import type { TokenUsage } from '../contracts/usage.ts';
import { chatChunkOf, type ChatChunkReading } from './chat/chatShapes.ts';
import { isChatStreamEnd } from './chat/streamEnd.ts';
import type { SseEvent } from './sse.ts';

/**
 * The common shape of the stream translators: Chat Completions chunks in (as read once by
 * `chatChunkOf`), complete SSE frames (strings to write in order) out. After finish() or fail()
 * every call returns no frames.
 */

export interface StreamFailure {
  /** Anthropic: the error type (api_error, overloaded_error, ...). Responses: the error code. */
  type: string;
  message: string;
}

export interface ChatStreamTranslator {
  push(chunk: ChatChunkReading): string[];
  /**
   * The upstream stream ended whole (the chat adapter's completeness rule). Without a
   * finish_reason seen, the reply is incomplete and this fails the stream instead of pretending
   * it completed. `unreportedUsage`: what the answer's usage is billed as when the gateway stated
   * none (Airlock's estimate), stated to the client instead of nothing.
   */
  finish(unreportedUsage?: TokenUsage | null): string[];
  fail(error: StreamFailure): string[];
  /** A finish_reason has come: finish() would complete the answer rather than fail it. */
  hasFinishReason(): boolean;
}

export const STREAM_ENDED_EARLY_MESSAGE = 'the upstream stream ended before the reply was finished';

/** A translator fed the gateway's events as they were parsed once (`[DONE]`, what follows it and non-JSON events carry nothing to translate). */
export interface StreamEventTranslator {
  push(event: SseEvent): string[];
  finish(unreportedUsage?: TokenUsage | null): string[];
  fail(error: StreamFailure): string[];
  hasFinishReason(): boolean;
}

export function fromChatEvents(translator: ChatStreamTranslator): StreamEventTranslator {
  let ended = false;
  return {
    push: (event) => {
      ended ||= isChatStreamEnd(event);
      const reading = ended ? null : chatChunkOf(event);
      return reading === null ? [] : translator.push(reading);
    },
    finish: (unreportedUsage) => translator.finish(unreportedUsage),
    fail: (error) => translator.fail(error),
    hasFinishReason: () => translator.hasFinishReason(),
  };
}
