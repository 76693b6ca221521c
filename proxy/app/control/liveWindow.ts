import type { ServerResponse } from 'node:http';
import { LIVE_EVENT_NAME, type LiveFrame, type LiveRequestUpdate } from '../../contracts/liveEvents.ts';
import type { StatusResponse } from '../../contracts/status.ts';
import { mergeUpdate } from './liveUpdates.ts';

/**
 * What a window has not taken yet, held merged per request (characters of its JSON), past which
 * the window is dropped and reconnects to a fresh snapshot: it stopped reading, and what is held
 * for it must stay bounded. Merged, a burst holds a row per request and a stream's tail, far less.
 */
const MAX_HELD_CHARS = 8 * 1024 * 1024;
/** A comment line keeps idle connections from being closed by anything in between. */
const HEARTBEAT_MS = 15_000;

export interface LiveWindowOptions {
  maxHeldChars?: number;
}

/**
 * One window's live feed, written on its response. A frame goes out at once while the socket takes
 * what it is given; once a write fills it, later frames are merged per request (fields replaced, a
 * stream's tail appended) and go out as one frame when it drains. So a window is judged by its
 * reading, not by a burst: one that reads gets every row's start and end at its own pace however
 * large the burst, and only one that stops reading grows what is held for it until it is dropped.
 */
export class LiveWindow {
  readonly #res: ServerResponse;
  readonly #maxHeldChars: number;
  readonly #heartbeat: NodeJS.Timeout;
  #held: HeldFrames | null = null;

  constructor(res: ServerResponse, options: LiveWindowOptions = {}) {
    this.#res = res;
    this.#maxHeldChars = options.maxHeldChars ?? MAX_HELD_CHARS;
    // A window that has not taken the last frame has bytes on the way: no heartbeat needed, none queued.
    this.#heartbeat = setInterval(() => {
      if (this.#held === null && !res.destroyed) res.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
  }

  /** Sends a frame, or merges it into what is held while the window has not taken the last one. */
  readonly send = (frame: LiveFrame): void => {
    if (this.#res.destroyed) return;
    if (this.#held === null) {
      this.#write(frame);
      return;
    }
    this.#held.add(frame);
    if (this.#held.chars > this.#maxHeldChars) this.#drop();
  };

  /** The window left: nothing more is sent or held. */
  close(): void {
    clearInterval(this.#heartbeat);
    this.#held = null;
  }

  #write(frame: LiveFrame): void {
    if (this.#res.write(sseMessageOf(frame))) return;
    this.#held = new HeldFrames();
    this.#res.once('drain', this.#drained);
  }

  readonly #drained = (): void => {
    const held = this.#held;
    this.#held = null;
    if (held !== null && !held.isEmpty()) this.#write(held.frame());
  };

  /**
   * Dropped, not ended: an end waits behind the whole backlog, the window still listed, and a
   * frame or heartbeat written after that end threw with no listener (write after end).
   */
  #drop(): void {
    this.#held = null;
    this.#res.destroy();
  }
}

/**
 * Each frame's SSE message, made at the first window that sends it: the hub hands every window the
 * same frame, so the text is made once per frame, not once per window on the forwarding thread.
 * Weak, so a frame's text goes when the frame does (after the hub's flush).
 */
const sseMessages = new WeakMap<LiveFrame, string>();

function sseMessageOf(frame: LiveFrame): string {
  let message = sseMessages.get(frame);
  if (message === undefined) {
    message = `event: ${LIVE_EVENT_NAME}\ndata: ${JSON.stringify(frame)}\n\n`;
    sseMessages.set(frame, message);
  }
  return message;
}

/**
 * Frames a window has not been sent yet, merged into one: an entry per request, the latest status.
 * An ended request's text is not kept (its row shows none), so what is held grows by a row per
 * request that ended meanwhile, and by a tail per stream still running.
 */
class HeldFrames {
  readonly #updates = new Map<string, LiveRequestUpdate>();
  #status: StatusResponse | null = null;
  /** About the characters of the frame they make. */
  chars = 0;

  add(frame: LiveFrame): void {
    for (const update of frame.requests) {
      const before = this.#updates.get(update.requestId);
      const charsBefore = before === undefined ? 0 : charsOf(before);
      mergeUpdate(this.#updates, update);
      const merged = this.#updates.get(update.requestId) as LiveRequestUpdate;
      if (merged.fields.state === 'done') merged.appendText = '';
      this.chars += charsOf(merged) - charsBefore;
    }
    if (frame.status !== null) this.#status = frame.status;
  }

  isEmpty(): boolean {
    return this.#updates.size === 0 && this.#status === null;
  }

  frame(): LiveFrame {
    return { requests: [...this.#updates.values()], status: this.#status };
  }
}

function charsOf(update: LiveRequestUpdate): number {
  return update.requestId.length + update.appendText.length + JSON.stringify(update.fields).length;
}
