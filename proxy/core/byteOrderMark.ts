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

/** The same for bytes not yet decoded (the first read of a body). */
export function bytesWithoutByteOrderMark(bytes: Buffer): Buffer {
  return bytes.subarray(0, UTF8_BYTE_ORDER_MARK.length).equals(UTF8_BYTE_ORDER_MARK) ? bytes.subarray(UTF8_BYTE_ORDER_MARK.length) : bytes;
}
