/**
 * The UTF-8 byte order mark that Windows tools write before text (PowerShell 5's Out-File,
 * editors saving "UTF-8 with BOM"). RFC 8259 section 8.1 lets a JSON reader ignore it, and the
 * clients' own parsers do (fetch's json(), Python's json.loads), while JSON.parse refuses it.
 */
const BYTE_ORDER_MARK = '\uFEFF';
const UTF8_BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

export function withoutByteOrderMark(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(BYTE_ORDER_MARK.length) : text;
}

/** The mark a text starts with, or '': a file edited in place is written back with it. */
export function byteOrderMarkOf(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? BYTE_ORDER_MARK : '';
}

function bytesWithoutByteOrderMark(bytes: Buffer): Buffer {
  return bytes.subarray(0, UTF8_BYTE_ORDER_MARK.length).equals(UTF8_BYTE_ORDER_MARK) ? bytes.subarray(UTF8_BYTE_ORDER_MARK.length) : bytes;
}

/**
 * Takes the mark off the start of bytes that arrive in reads, however few the first reads hold
 * (a chunked upload may send a byte at a time): bytes that may still be the mark's start wait.
 */
export class LeadingByteOrderMark {
  private held: Buffer | null = null;
  private decided = false;

  /** What to keep of this read: null while the bytes so far may still be the mark's start. */
  take(read: Buffer): Buffer | null {
    if (this.decided) return read;
    const sofar = this.held === null ? read : Buffer.concat([this.held, read]);
    if (sofar.length < UTF8_BYTE_ORDER_MARK.length && UTF8_BYTE_ORDER_MARK.subarray(0, sofar.length).equals(sofar)) {
      this.held = sofar;
      return null;
    }
    this.decided = true;
    this.held = null;
    return bytesWithoutByteOrderMark(sofar);
  }

  /** At the end: the bytes still waiting, which were no mark but the whole body. */
  rest(): Buffer | null {
    const held = this.held;
    this.held = null;
    this.decided = true;
    return held;
  }
}
