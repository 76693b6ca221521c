import { createParser } from 'eventsource-parser';

/**
 * The front end of a translated stream: raw upstream bytes in, parsed Chat Completions chunks
 * out. Bytes may be split anywhere, also inside a multi-byte character or an SSE line; the
 * streaming TextDecoder and the SSE parser carry the partial pieces over to the next feed.
 */
export interface ChatChunkReader {
  feed(bytes: Uint8Array): void;
  /**
   * The upstream body ended. A last event without its closing blank line is still read (some
   * servers omit it after `[DONE]`); if it was cut short, its JSON is invalid and says so.
   */
  end(): void;
}

export const CHAT_STREAM_DONE_MARKER = '[DONE]';

export function createChatChunkReader(
  onChunk: (chunk: object) => void,
  onDone: () => void,
  onInvalid: (raw: string) => void,
): ChatChunkReader {
  const decoder = new TextDecoder('utf-8');
  const parser = createParser({
    onEvent(event) {
      const data = event.data;
      // An empty data line is a keep-alive some gateways send, not a chunk.
      if (data.trim() === '') return;
      if (data.trim() === CHAT_STREAM_DONE_MARKER) {
        onDone();
        return;
      }
      const parsed = parseJsonObject(data);
      if (parsed === null) onInvalid(data);
      else onChunk(parsed);
    },
  });
  return {
    feed(bytes) {
      const text = decoder.decode(bytes, { stream: true });
      if (text !== '') parser.feed(text);
    },
    end() {
      parser.feed(`${decoder.decode()}\n\n`);
      parser.reset();
    },
  };
}

function parseJsonObject(text: string): object | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
