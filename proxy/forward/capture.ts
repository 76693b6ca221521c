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

/** Keeps the first `limitBytes` of a body by reference (no copies) for the log. */
export class BodyCapture implements CapturedBody {
  private chunks: Buffer[] = [];
  private capturedBytes = 0;
  truncated = false;
  private readonly limitBytes: number;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  add(chunk: Buffer): void {
    if (this.truncated) return;
    const room = this.limitBytes - this.capturedBytes;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.capturedBytes += Math.max(room, 0);
      this.truncated = true;
      return;
    }
    this.chunks.push(chunk);
    this.capturedBytes += chunk.length;
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
    // Most bodies arrive in one chunk, a view of one socket read: hand that out rather than copying it.
    if (this.chunks.length === 1 && first.buffer.byteLength <= first.length * MAX_BACKING_PER_CAPTURED_BYTE) return first;
    const joined = ownCopy(this.chunks, this.capturedBytes);
    this.chunks = [joined];
    return joined;
  }
}
