import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Decides, event by event, what the client receives, and extracts what the log and window need. */
export interface StreamObserver {
  /** Returns false to keep the event from the client (e.g. a usage chunk the client never asked for). */
  observe(event: EventSourceMessage): boolean;
  readonly sawEndMarker: boolean;
  /** The message of an error event the upstream sent inside the stream, if any. */
  readonly upstreamErrorMessage: string | null;
}

/** An event with its data parsed once, for every step of the relay that reads it. */
type ParsedEvent = EventSourceMessage & { parsedData?: Record<string, unknown> | null };

/**
 * The event's data as a JSON object (null if it is not one), parsed at the first call. A step that
 * changes the object must write `data` again; the object stays the one later steps read.
 */
export function eventJson(event: EventSourceMessage): Record<string, unknown> | null {
  const parsed = event as ParsedEvent;
  if (parsed.parsedData !== undefined) return parsed.parsedData;
  let json: Record<string, unknown> | null = null;
  try {
    const value: unknown = JSON.parse(event.data);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) json = value as Record<string, unknown>;
  } catch {
    // Not JSON ([DONE], a keep-alive): nothing to read in it.
  }
  parsed.parsedData = json;
  return json;
}

/** Decoded stream text on its way to the parser: the key is masked in it, an end that may begin the key held. */
export interface TextGuard {
  push(text: string): string;
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
  textGuard: TextGuard | null = null,
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
      const text = decoder.decode(chunk, { stream: true });
      // What the guard holds is never a whole line (no form of the key holds a line break), so
      // holding it delays no event: the parser would keep that partial line waiting too.
      parser.feed(textGuard === null ? text : textGuard.push(text));
      if (pending.length > 0) {
        const frames = pending;
        pending = '';
        write(frames);
      }
    },
  };
}
