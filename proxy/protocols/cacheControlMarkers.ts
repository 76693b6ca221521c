import type { PromptCacheWrites } from '../contracts/usage.ts';

const MARKER = Buffer.from('"cache_control"');
const ONE_HOUR = Buffer.from('"1h"');
const CLOSE_BRACE = 0x7d;
/** How far past a marker its object is looked at for a ttl: `{"type": "ephemeral", "ttl": "1h"}` with room for spaces. */
const MARKER_OBJECT_MAX_BYTES = 256;

/**
 * The prompt-cache writes a JSON body asks for, found from its bytes without parsing it (a long
 * agent session is not parsed on the loop): Anthropic writes a cache only where `cache_control`
 * marks it, for 5 minutes unless its `ttl` is `"1h"` (platform.claude.com/docs/en/build-with-claude/prompt-caching;
 * OpenAI's and Gemini's automatic caching bill writes at the input price: docs.opper.ai/build/gateway/prompt-caching). Text that only mentions the
 * marker in quotes does not: inside a JSON string its quotes are escaped. A key itself written
 * with escapes (`cache\\u005fcontrol`) is not seen; no client writes one. The body is read as the
 * chunks it came in: joined, an agent's 500 KB history was copied for every capped request.
 */
export function promptCacheWritesIn(chunks: readonly Buffer[]): PromptCacheWrites {
  const body = new ChunkedBytes(chunks);
  let writes: PromptCacheWrites = 'none';
  let chunkStart = 0;
  for (const [index, chunk] of chunks.entries()) {
    for (let at = chunk.indexOf(MARKER); at >= 0; at = chunk.indexOf(MARKER, at + 1)) {
      writes = '5m';
      if (asksOneHour(body, chunkStart + at)) return '1h';
    }
    const chunkEnd = chunkStart + chunk.length;
    // A marker cut by this chunk's end: the few bytes on each side, read across however many chunks they span.
    if (index < chunks.length - 1) {
      const seamStart = Math.max(0, chunkEnd - MARKER.length + 1);
      const seam = body.slice(seamStart, chunkEnd + MARKER.length - 1);
      for (let at = seam.indexOf(MARKER); at >= 0 && seamStart + at < chunkEnd; at = seam.indexOf(MARKER, at + 1)) {
        writes = '5m';
        if (asksOneHour(body, seamStart + at)) return '1h';
      }
    }
    chunkStart = chunkEnd;
  }
  return writes;
}

/** Whether the marker's object (up to its first `}`, at most MARKER_OBJECT_MAX_BYTES) holds a `"1h"` ttl. */
function asksOneHour(body: ChunkedBytes, markerStart: number): boolean {
  const valueFrom = markerStart + MARKER.length;
  const value = body.slice(valueFrom, valueFrom + MARKER_OBJECT_MAX_BYTES);
  const closeAt = value.indexOf(CLOSE_BRACE);
  return (closeAt < 0 ? value : value.subarray(0, closeAt)).includes(ONE_HOUR);
}

/** A body's chunks read as one run of bytes, for the few bytes around a marker. */
class ChunkedBytes {
  readonly #chunks: readonly Buffer[];
  /** Where each chunk starts in the body: a slice finds its first chunk by a binary search, not a walk from the start. */
  readonly #starts: number[];

  constructor(chunks: readonly Buffer[]) {
    this.#chunks = chunks;
    this.#starts = [];
    let start = 0;
    for (const chunk of chunks) {
      this.#starts.push(start);
      start += chunk.length;
    }
  }

  /** The bytes from `from` up to `to` (past the end: as many as there are), copied only when they span chunks. */
  slice(from: number, to: number): Buffer {
    const pieces: Buffer[] = [];
    for (let index = this.#chunkAt(from); index < this.#chunks.length; index += 1) {
      const chunkStart = this.#starts[index] as number;
      if (chunkStart >= to) break;
      const chunk = this.#chunks[index] as Buffer;
      pieces.push(chunk.subarray(Math.max(0, from - chunkStart), Math.min(chunk.length, to - chunkStart)));
    }
    return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  }

  /** The last chunk starting at or before `offset`. */
  #chunkAt(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((this.#starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
