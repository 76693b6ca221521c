/**
 * Finds the top-level `model` (string) and `stream` (boolean) of a JSON object held as chunks,
 * without materialising it: used for bodies too large to parse cheaply. Offsets are absolute
 * byte positions of the model string's contents (between its quotes), for splicing an alias.
 */
export interface TopLevelScan {
  model: string | null;
  modelStart: number;
  modelEnd: number;
  stream: boolean | null;
  hasStreamOptions: boolean;
  isObject: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
/** Longer top-level keys cannot be one we look for, so their bytes are not kept. */
const MAX_KEY_BYTES = 64;

export function scanTopLevel(chunks: readonly Buffer[]): TopLevelScan {
  const scanner = new TopLevelScanner();
  let offset = 0;
  for (const chunk of chunks) {
    if (!scanner.feed(chunk, offset)) break;
    offset += chunk.length;
  }
  return scanner.result;
}

/**
 * Nearly all of a large body is string contents (messages, base64 images), so inside a string the
 * scanner jumps to the next quote or backslash with Buffer.indexOf (memchr) instead of visiting
 * every byte in JavaScript; only the structure between strings is walked byte by byte.
 */
class TopLevelScanner {
  readonly result: TopLevelScan = { model: null, modelStart: -1, modelEnd: -1, stream: null, hasStreamOptions: false, isObject: false };
  private seenFirst = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectingKey = false;
  private lastKey: string | null = null;
  private valueKey: string | null = null;
  private literal = '';
  private stringStart = 0;
  /** Pieces of the current string when it is a top-level key or the model value; null otherwise. */
  private pieces: Buffer[] | null = null;
  private pieceBytes = 0;
  private pieceLimit = 0;
  private overflowed = false;

  /** Returns false once nothing later can change the result. */
  feed(chunk: Buffer, offset: number): boolean {
    const length = chunk.length;
    // Next quote / backslash at or after the current position; -2 unknown, -1 none left in this chunk.
    let quoteAt = -2;
    let backslashAt = -2;
    let index = 0;
    while (index < length) {
      if (this.inString) {
        const segmentStart = index;
        for (;;) {
          if (this.escaped) {
            if (index >= length) break;
            this.escaped = false;
            index += 1;
          }
          if (quoteAt !== -1 && quoteAt < index) quoteAt = chunk.indexOf(QUOTE, index);
          if (backslashAt !== -1 && backslashAt < index) backslashAt = chunk.indexOf(BACKSLASH, index);
          if (backslashAt !== -1 && (quoteAt === -1 || backslashAt < quoteAt)) {
            this.escaped = true;
            index = backslashAt + 1;
            continue;
          }
          if (quoteAt === -1) {
            index = length;
            break;
          }
          this.collect(chunk, segmentStart, quoteAt);
          this.endString(offset + quoteAt);
          index = quoteAt + 1;
          break;
        }
        if (this.inString) this.collect(chunk, segmentStart, length);
        continue;
      }
      if (!this.structure(chunk[index]!, offset + index)) return false;
      index += 1;
    }
    return true;
  }

  /** One byte outside any string. */
  private structure(byte: number, position: number): boolean {
    if (!this.seenFirst) {
      if (byte <= 0x20) return true;
      this.seenFirst = true;
      this.result.isObject = byte === OPEN_BRACE;
      if (!this.result.isObject) return false;
    }
    if (this.depth === 1 && this.valueKey === 'stream' && byte > 0x20) {
      if (byte === COMMA || byte === CLOSE_BRACE) {
        this.result.stream = this.literal === 'true' ? true : this.literal === 'false' ? false : null;
        this.literal = '';
        this.valueKey = null;
      } else if (byte === QUOTE || byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        this.result.stream = null;
        this.valueKey = null;
      } else {
        this.literal += String.fromCharCode(byte);
        return true;
      }
    }
    switch (byte) {
      case QUOTE:
        this.inString = true;
        this.stringStart = position + 1;
        this.startCollecting();
        return true;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.depth += 1;
        if (this.depth === 1) this.expectingKey = true;
        return true;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.depth -= 1;
        // The top-level object is closed: whatever follows is not part of it.
        return this.depth > 0;
      case COLON:
        if (this.depth === 1 && this.expectingKey) {
          this.expectingKey = false;
          this.valueKey = this.lastKey;
          if (this.lastKey === 'stream_options') this.result.hasStreamOptions = true;
        }
        return true;
      case COMMA:
        if (this.depth === 1) {
          this.expectingKey = true;
          this.valueKey = null;
        }
        return true;
      default:
        return true;
    }
  }

  private startCollecting(): void {
    const wanted = this.depth === 1 && (this.expectingKey || this.valueKey === 'model');
    this.pieces = wanted ? [] : null;
    this.pieceBytes = 0;
    this.pieceLimit = this.expectingKey ? MAX_KEY_BYTES : Number.POSITIVE_INFINITY;
    this.overflowed = false;
  }

  private collect(chunk: Buffer, start: number, end: number): void {
    if (this.pieces === null || end <= start || this.overflowed) return;
    this.pieceBytes += end - start;
    if (this.pieceBytes > this.pieceLimit) this.overflowed = true;
    else this.pieces.push(chunk.subarray(start, end));
  }

  private endString(closingQuoteAt: number): void {
    this.inString = false;
    if (this.pieces === null) return;
    const text = this.overflowed ? null : decodeJsonString(this.pieces, this.pieceBytes);
    this.pieces = null;
    if (this.expectingKey) {
      this.lastKey = text;
    } else if (this.valueKey === 'model') {
      this.result.model = text;
      this.result.modelStart = this.stringStart;
      this.result.modelEnd = closingQuoteAt;
    }
  }
}

/** The text of a string's raw contents; null when its escapes are not valid JSON. */
function decodeJsonString(pieces: readonly Buffer[], byteLength: number): string | null {
  const raw = (pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, byteLength)).toString('utf8');
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}

/** Replaces bytes [start, end) of a chunked buffer without copying the untouched chunks. */
export function spliceChunks(chunks: readonly Buffer[], start: number, end: number, replacement: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let offset = 0;
  let inserted = false;
  const insert = (): void => {
    if (!inserted) out.push(replacement);
    inserted = true;
  };
  for (const chunk of chunks) {
    const chunkEnd = offset + chunk.length;
    if (chunkEnd <= start) out.push(chunk);
    else if (offset >= end) {
      insert();
      out.push(chunk);
    } else {
      if (start > offset) out.push(chunk.subarray(0, start - offset));
      insert();
      if (end < chunkEnd) out.push(chunk.subarray(end - offset));
    }
    offset = chunkEnd;
  }
  insert();
  return out;
}
