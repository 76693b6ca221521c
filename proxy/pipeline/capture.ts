/** Keeps the first `limitBytes` of a body by reference (no copies) for the log. */
export class BodyCapture {
  readonly chunks: Buffer[] = [];
  capturedBytes = 0;
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

  addText(text: string): void {
    this.add(Buffer.from(text));
  }

  toBuffer(): Buffer | null {
    if (this.chunks.length === 0) return null;
    // Most bodies arrive in one chunk: hand that out rather than copying it.
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.capturedBytes);
  }
}
