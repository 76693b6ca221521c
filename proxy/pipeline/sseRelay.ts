import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Decides, event by event, what the client receives, and extracts what the log and window need. */
export interface StreamObserver {
  /** Returns false to keep the event from the client (e.g. a usage chunk the client never asked for). */
  observe(event: EventSourceMessage): boolean;
  readonly sawEndMarker: boolean;
  /** The message of an error event the upstream sent inside the stream, if any. */
  readonly upstreamErrorMessage: string | null;
}

export interface SseRelay {
  /** Relays every complete event in this chunk at once; an event split across chunks waits for its end. */
  feed(chunk: Buffer): void;
}

/** Serialises one event back to the wire; `data` may hold several lines. */
export function formatSseEvent(event: EventSourceMessage): string {
  let frame = '';
  if (event.event !== undefined) frame += `event: ${event.event}\n`;
  if (event.id !== undefined) frame += `id: ${event.id}\n`;
  for (const line of event.data.split('\n')) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/**
 * Parses the upstream SSE byte stream and writes each complete event, as `transform` renders it
 * (unchanged, dropped or translated), to the client in the same
 * turn of the event loop it arrived in: nothing is delayed and nothing from two upstream chunks is
 * merged. Comments (keep-alives) are relayed too, because clients' idle timers depend on them.
 */
export function createSseRelay(
  transform: (event: EventSourceMessage) => string,
  write: (frames: string) => void,
): SseRelay {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  const parser = createParser({
    onEvent(event) {
      pending += transform(event);
    },
    onComment(comment) {
      pending += `:${comment}\n\n`;
    },
  });
  return {
    feed(chunk) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (pending.length > 0) {
        const frames = pending;
        pending = '';
        write(frames);
      }
    },
  };
}
