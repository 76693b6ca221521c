import type { KeyMasker } from '../core/keyMasker.ts';

/** What a capture needs of the key's masker: how far past its limit a form may reach, and the masking. */
export type CaptureKeyMasker = Pick<KeyMasker, 'maskBytes' | 'longestEscapedChars'>;

/**
 * A captured body can be held long after its request: a keyed creation's answer for the whole
 * replay window (the idempotency cache), any body until the log's next post. A slice of Node's
 * 64 KiB buffer pool (what `Buffer.concat` and `Buffer.from` give for small sizes) held there keeps
 * the whole pool alive, whatever its length. So what the capture hands out owns a backing store at
 * most this many times its length.
 */
export const MAX_BACKING_PER_CAPTURED_BYTE = 2;

/** An exact-size copy in its own backing store, outside the pool. */
function ownCopy(chunks: readonly Buffer[], byteLength: number): Buffer {
  const copy = Buffer.allocUnsafeSlow(byteLength);
  let offset = 0;
  for (const chunk of chunks) offset += chunk.copy(copy, offset);
  return copy;
}

/** `text` as UTF-8 in its own backing store (`Buffer.from` would slice the pool for short text). */
export function ownTextBuffer(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** What readers of a capture may do: read it, never add to it. */
export interface CapturedBody {
  readonly truncated: boolean;
  toBuffer(): Buffer | null;
}

/**
 * Keeps the first `limitBytes` of a body by reference (no copies) for the log. Given the key the
 * body may echo, it keeps enough bytes past the limit to hold any form of the key, and a body cut
 * there is masked before it is cut: cut first, a key across the cut kept its start, which no mask of
 * the whole key (the log's, later) matches any more.
 */
export class BodyCapture implements CapturedBody {
  private chunks: Buffer[] = [];
  private capturedBytes = 0;
  truncated = false;
  private readonly limitBytes: number;
  private readonly keptBytes: number;
  private readonly keyMasker: CaptureKeyMasker | null;

  constructor(limitBytes: number, keyMasker: CaptureKeyMasker | null = null) {
    this.limitBytes = limitBytes;
    this.keyMasker = keyMasker;
    this.keptBytes = limitBytes + (keyMasker?.longestEscapedChars ?? 0);
  }

  add(chunk: Buffer): void {
    if (this.capturedBytes >= this.keptBytes) {
      this.truncated ||= chunk.length > 0;
      return;
    }
    const room = this.keptBytes - this.capturedBytes;
    this.chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    this.capturedBytes += Math.min(chunk.length, room);
    this.truncated ||= this.capturedBytes > this.limitBytes || chunk.length > room;
  }

  /** What was captured, rewritten (masked): it replaces the chunks, and counts as captured whatever its length. */
  replaceText(text: string): void {
    const bytes = ownTextBuffer(text);
    this.chunks = [bytes];
    this.capturedBytes = bytes.length;
  }

  /** The captured bytes as one Buffer; several chunks are joined once and kept joined for later calls. */
  toBuffer(): Buffer | null {
    const [first] = this.chunks;
    if (first === undefined) return null;
    if (this.capturedBytes > this.limitBytes) {
      const whole = ownCopy(this.chunks, this.capturedBytes);
      // Masked by masks of their own length, so the cut stays where the limit puts it.
      const masked = this.keyMasker === null ? whole : this.keyMasker.maskBytes(whole);
      const cut = this.cutAtLimit(masked);
      this.chunks = [cut];
      this.capturedBytes = cut.length;
      return cut;
    }
    // Most bodies arrive in one chunk, a view of one socket read: hand that out rather than copying it.
    if (this.chunks.length === 1 && first.buffer.byteLength <= first.length * MAX_BACKING_PER_CAPTURED_BYTE) return first;
    const joined = ownCopy(this.chunks, this.capturedBytes);
    this.chunks = [joined];
    return joined;
  }

  /**
   * The capture as a capture of `limitBytes` would have kept it (the log's copy of an answer kept
   * longer for a keyed creation's repeat): masked before it is cut, as add and toBuffer do, and in
   * a store of its own, so the log's row neither holds the start of a key the cut went through nor
   * keeps the whole answer alive. Null when nothing was captured; the capture itself is unchanged.
   */
  cutTo(limitBytes: number): Buffer | null {
    const whole = this.toBuffer();
    if (whole === null || whole.length <= limitBytes) return whole;
    const masked = this.keyMasker === null ? whole : this.keyMasker.maskBytes(whole);
    return ownCopy([masked.subarray(0, limitBytes)], limitBytes);
  }

  /**
   * The masked capture cut at the limit: a view where its backing stays within
   * MAX_BACKING_PER_CAPTURED_BYTE, since copying a 1 MiB capture (its fresh pages faulted in) held the
   * loop at the end of each large request. The margin past the limit (up to ten times the longest
   * form) may hold the start of a form the kept bytes cut short, unmasked: it is zeroed, as the view
   * keeps it alive while the row waits.
   */
  private cutAtLimit(masked: Buffer): Buffer {
    if (masked.buffer.byteLength > this.limitBytes * MAX_BACKING_PER_CAPTURED_BYTE) {
      return ownCopy([masked.subarray(0, this.limitBytes)], this.limitBytes);
    }
    masked.fill(0, this.limitBytes);
    return masked.subarray(0, this.limitBytes);
  }
}
