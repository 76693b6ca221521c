import { createParser } from 'eventsource-parser';
import { formatSseComment, SseTextDecoder, type SseEvent } from './sse.ts';

/** Decoded stream text on its way to the parser: the key is masked in it, an end that may begin the key held. */
export interface TextGuard {
  push(text: string): string;
}

export interface SseRelay {
  /**
   * Relays every complete event in this chunk at once; an event split across chunks waits for its
   * end. Returns how many events this chunk completed (comments not counted), for their timing.
   */
  feed(chunk: Buffer): number;
}

/**
 * Parses the upstream SSE byte stream and writes each complete event, as `transform` renders it
 * (unchanged, dropped or translated), to the client in the same
 * turn of the event loop it arrived in: nothing is delayed and nothing from two upstream chunks is
 * merged. Comments (keep-alives) are relayed too, because clients' idle timers depend on them.
 */
export function createSseRelay(
  transform: (event: SseEvent) => string,
  write: (frames: string) => void,
  textGuard: TextGuard | null = null,
): SseRelay {
  const decoder = new SseTextDecoder();
  let pending = '';
  let completedEvents = 0;
  const parser = createParser({
    onEvent(event) {
      completedEvents += 1;
      pending += transform(event);
    },
    onComment(comment) {
      pending += formatSseComment(comment);
    },
  });
  return {
    feed(chunk) {
      completedEvents = 0;
      const text = decoder.decode(chunk);
      // What the guard holds is never a whole line (no form of the key holds a line break), so
      // holding it delays no event: the parser would keep that partial line waiting too.
      parser.feed(textGuard === null ? text : textGuard.push(text));
      if (pending.length > 0) {
        const frames = pending;
        pending = '';
        write(frames);
      }
      return completedEvents;
    },
  };
}
