import { createParser } from 'eventsource-parser';

export interface SseMessage {
  event: string | undefined;
  data: string;
}

/**
 * Reads a text/event-stream response body and hands each message over. fetch is used instead of
 * EventSource because EventSource cannot send the Authorization header Electron's window uses.
 */
export async function readSse(body: ReadableStream<Uint8Array>, onMessage: (message: SseMessage) => void): Promise<void> {
  const parser = createParser({ onEvent: (event) => onMessage({ event: event.event, data: event.data }) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    parser.feed(decoder.decode(value, { stream: true }));
  }
}
