import type { SseEvent } from '../sse.ts';

/**
 * Whether the event ends a chat stream. The OpenAI SDKs end it at data that starts with `[DONE]`
 * (trailing spaces and all: openai-node's Stream, openai-python's `startswith`) and read nothing
 * after it; Airlock reads the stream as they do, so a stray event after it is not the answer.
 */
export function isChatStreamEnd(event: SseEvent): boolean {
  return event.data.startsWith('[DONE]');
}
