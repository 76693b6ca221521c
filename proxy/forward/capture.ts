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
  /** More than the log keeps arrived: an answer is read as it passed, not parsed whole from its capture. */
  readonly pastLogLimit: boolean;
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
  /** What the log keeps of it: `limitBytes` unless the capture is kept longer for another reader. */
  private readonly logLimitBytes: number;

  constructor(limitBytes: number, keyMasker: CaptureKeyMasker | null = null, logLimitBytes = limitBytes) {
    this.limitBytes = limitBytes;
    this.keyMasker = keyMasker;
    this.logLimitBytes = Math.min(limitBytes, logLimitBytes);
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

  get pastLogLimit(): boolean {
    return this.truncated || this.capturedBytes > this.logLimitBytes;
  }

  /**
   * What the log keeps: the capture cut at the log's limit where it was kept longer (a keyed
   * creation's answer, for its repeat). Masked before it is cut, as add and toBuffer do, and in a
   * store of its own: cut first, the row held the start of a key the cut went through, and a view
   * kept the whole answer alive.
   */
  forLog(): { body: Buffer | null; truncated: boolean } {
    const whole = this.toBuffer();
    if (whole === null || whole.length <= this.logLimitBytes) return { body: whole, truncated: this.truncated };
    const masked = this.keyMasker === null ? whole : this.keyMasker.maskBytes(whole);
    return { body: ownCopy([masked.subarray(0, this.logLimitBytes)], this.logLimitBytes), truncated: true };
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
