/**
 * When each event of a stream arrived, in whole ms since its request started (the Network panel's
 * EventStream view times events from the request's start too). Events past this many are not timed:
 * the log keeps at most 1 MiB of a stream's events, about 7,000 events of a typical chat stream.
 */
export const MAX_TIMED_EVENTS = 65_536;

const INITIAL_CAPACITY = 64;

/** Arrival offsets of a stream's events, in one typed array that doubles when full: a number per event, no object. */
export class EventOffsetRecorder {
  private offsetsMs = new Uint32Array(INITIAL_CAPACITY);
  private count = 0;

  /** `events` events arrived together (one upstream read) `offsetMs` after the request started. */
  arrived(events: number, offsetMs: number): void {
    const wanted = Math.min(this.count + events, MAX_TIMED_EVENTS);
    if (wanted > this.offsetsMs.length) {
      const grown = new Uint32Array(Math.min(Math.max(this.offsetsMs.length * 2, wanted), MAX_TIMED_EVENTS));
      grown.set(this.offsetsMs.subarray(0, this.count));
      this.offsetsMs = grown;
    }
    const rounded = Math.round(offsetMs);
    // Most reads complete one event: a store, not a call to fill.
    if (wanted === this.count + 1) this.offsetsMs[this.count] = rounded;
    else this.offsetsMs.fill(rounded, this.count, wanted);
    this.count = wanted;
  }

  /** An exact-size copy (a view of the larger array would carry all of it to the log thread). */
  offsets(): Uint32Array | null {
    return this.count === 0 ? null : this.offsetsMs.slice(0, this.count);
  }
}

/**
 * Packs non-decreasing offsets as the gaps between them, each an unsigned LEB128 varint: most gaps
 * are a few ms, so an event takes one byte where a 32-bit number takes four. A gap that would be
 * negative is stored as 0 (offsets come from a monotonic clock, so there is none in practice).
 */
export function packEventOffsets(offsetsMs: ArrayLike<number>): Uint8Array {
  const bytes: number[] = [];
  let previous = 0;
  for (let index = 0; index < offsetsMs.length; index += 1) {
    const current = Math.max(previous, Math.round(offsetsMs[index] ?? 0));
    let gap = current - previous;
    previous = current;
    while (gap >= 0x80) {
      bytes.push((gap % 0x80) | 0x80);
      gap = Math.floor(gap / 0x80);
    }
    bytes.push(gap);
  }
  return Uint8Array.from(bytes);
}

/** The offsets `packEventOffsets` packed; a cut last varint is dropped. */
export function unpackEventOffsets(packed: Uint8Array): number[] {
  const offsetsMs: number[] = [];
  let previous = 0;
  let gap = 0;
  let scale = 1;
  for (const byte of packed) {
    gap += (byte & 0x7f) * scale;
    if (byte & 0x80) {
      scale *= 0x80;
      continue;
    }
    previous += gap;
    offsetsMs.push(previous);
    gap = 0;
    scale = 1;
  }
  return offsetsMs;
}
