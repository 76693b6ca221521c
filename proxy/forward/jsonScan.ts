import { decodeJsonString, knownKey, LITERAL_KEYS, MAX_KEY_BYTES, MEMBER_BITS, memberInAnotherCase, OTHER_KEY } from './scannedMembers.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../core/jsonBytes.ts';
/**
 * Finds the top-level `model` (string) and `stream` (boolean) of a JSON object held as chunks,
 * without materialising it, and measures what parsing it would cost: run on every JSON body as it
 * arrives, so a body too large or too intricate to parse on the forwarding loop is known without
 * parsing it. Offsets are absolute byte positions, for splicing the members Airlock sets
 * (bodyRewrite.ts) into the client's bytes instead of serialising the body again.
 */
export interface TopLevelScan {
  model: string | null;
  stream: boolean | null;
  /**
   * The top-level numbers a budget reads (output limits, `n`), by key; a key whose last value is
   * no number is absent. A body too large to parse still states how much output it allows.
   */
  numbers: Record<string, number>;
  /**
   * The first member of those read here (model, stream, stream_options, output limits, n) that the
   * top-level object names twice: parsers differ on which one counts (JSON.parse and Go's
   * encoding/json take the last, gjson's Get and simdjson's lookups the first), so such a body is
   * refused (requestBody.ts, arrivingBody.ts).
   */
  repeatedMember: string | null;
  /**
   * The first top-level key that names one of those members in another letter case (`"MODEL"`,
   * `"Max_Tokens"`): relays written in Go read it as that member, others ignore it, so such a body
   * is refused too.
   */
  memberInAnotherCase: { written: string; member: string } | null;
  /** The last top-level `model` and `stream_options` values (a duplicate key's last wins, as in JSON.parse). */
  modelValue: ByteRange | null;
  streamOptionsValue: ByteRange | null;
  /**
   * The top-level `max_tokens` key, from its opening quote to its colon: renamed on the bytes for a
   * model that refuses the name (bodyRewrite.ts, protocols/chat/maxTokens.ts).
   */
  maxTokensKey: ByteRange | null;
  /** Whether the top-level object names `max_completion_tokens`, whatever its value: then `max_tokens` is not renamed. */
  namesMaxCompletionTokens: boolean;
  /** Where the top-level object's `{` is; -1 until it is seen. */
  objectStart: number;
  /** Whether the top-level object has a member: a member inserted after its `{` then needs a comma. */
  hasMembers: boolean;
  /** Whether the top-level object's closing brace was seen: a body cut short is no JSON to edit. */
  closed: boolean;
  isObject: boolean;
  /** Deepest nesting of objects and arrays seen (the top-level object is 1). */
  maxDepth: number;
  /** True when the nesting went past the scanner's limit; the scan stopped there. */
  tooDeep: boolean;
  /**
   * Opening brackets, commas and colons outside strings: about one per key and value. JSON.parse
   * costs up to about 0.4 us for each (a new key or string), against about 1 ns a byte of text.
   */
  structuralMarks: number;
}

/** A value's bytes: from just after its colon to the comma or brace that ends it, whitespace included. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The top-level members whose bytes are located; their texts are decoded by the caller only when needed. */
type LocatedKey = 'model' | 'stream_options';

/** Bytes of a string looked at one by one before its end is searched for natively. */
const SHORT_STRING_BYTES = 32;
/**
 * Fed each chunk as it arrives, so its work is spread over the reads: no call walks more than the
 * chunk it is given (at most 64 KiB from a socket), whatever the body's shape. Nearly all of a
 * large body is string contents (messages, base64 images), so inside a string the scanner jumps
 * to the next quote or backslash with Buffer.indexOf (memchr) instead of visiting every byte in
 * JavaScript; only the structure between strings is walked byte by byte.
 */
export class TopLevelScanner {
  readonly result: TopLevelScan = {
    model: null,
    stream: null,
    numbers: {},
    repeatedMember: null,
    memberInAnotherCase: null,
    modelValue: null,
    streamOptionsValue: null,
    maxTokensKey: null,
    namesMaxCompletionTokens: false,
    objectStart: -1,
    hasMembers: false,
    closed: false,
    isObject: false,
    maxDepth: 0,
    tooDeep: false,
    structuralMarks: 0,
  };
  private readonly depthLimit: number;
  /** Bytes fed so far: the next chunk's absolute offset. */
  private offset = 0;
  private done = false;
  private seenFirst = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectingKey = false;
  private lastKey: string | null = null;
  /** The members read here seen so far, one bit each (MEMBER_BITS). */
  private seenMembers = 0;
  private valueKey: string | null = null;
  /** The located member whose value is being read, and where that value started. */
  private locatedKey: LocatedKey | null = null;
  private valueStart = 0;
  /** Where the top-level key being read began (its opening quote). */
  private keyStart = 0;
  private literal = '';
  /** Whether the current string is a top-level key or the model value, whose text is wanted. */
  private collecting = false;
  /**
   * The wanted string's bytes: nearly always one range of one chunk, kept as that range (no view,
   * no copy: this runs for every request); `morePieces` only when it spans chunks.
   */
  private firstChunk: Buffer | null = null;
  private firstStart = 0;
  private firstEnd = 0;
  private morePieces: Buffer[] | null = null;
  private hadEscape = false;
  private pieceBytes = 0;
  private pieceLimit = 0;
  private overflowed = false;

  /** Nesting deeper than `depthLimit` stops the scan with `tooDeep` set. */
  constructor(depthLimit = Number.POSITIVE_INFINITY) {
    this.depthLimit = depthLimit;
  }

  /** Returns false once nothing later can change the result (later chunks are then ignored). */
  feed(chunk: Buffer): boolean {
    if (this.done) return false;
    const offset = this.offset;
    this.offset += chunk.length;
    this.done = !this.walk(chunk, offset);
    return !this.done;
  }

  private walk(chunk: Buffer, offset: number): boolean {
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
          // Most strings (keys, roles, short values) end within a few bytes: a loop finds their end
          // sooner than a native indexOf call, which long strings (text, base64) still get.
          let stop = index;
          const shortEnd = Math.min(length, index + SHORT_STRING_BYTES);
          while (stop < shortEnd && chunk[stop] !== QUOTE && chunk[stop] !== BACKSLASH) stop += 1;
          if (stop === shortEnd && stop < length) {
            if (quoteAt !== -1 && quoteAt < stop) quoteAt = chunk.indexOf(QUOTE, stop);
            if (backslashAt !== -1 && backslashAt < stop) backslashAt = chunk.indexOf(BACKSLASH, stop);
            stop = quoteAt === -1 ? backslashAt : backslashAt === -1 ? quoteAt : Math.min(quoteAt, backslashAt);
            if (stop === -1) stop = length;
          }
          if (stop === length) {
            index = length;
            break;
          }
          if (chunk[stop] === BACKSLASH) {
            this.escaped = true;
            this.hadEscape = true;
            index = stop + 1;
            continue;
          }
          this.collect(chunk, segmentStart, stop);
          this.endString();
          index = stop + 1;
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
      this.result.objectStart = position;
    }
    if (this.locatedKey !== null && this.depth === 1 && (byte === COMMA || byte === CLOSE_BRACE)) {
      const range = { start: this.valueStart, end: position };
      if (this.locatedKey === 'model') this.result.modelValue = range;
      else this.result.streamOptionsValue = range;
      this.locatedKey = null;
    }
    if (this.depth === 1 && this.valueKey !== null && LITERAL_KEYS.has(this.valueKey) && byte > 0x20) {
      if (byte === COMMA || byte === CLOSE_BRACE) {
        this.endLiteral(this.valueKey, this.literal);
        this.literal = '';
        this.valueKey = null;
      } else if (byte === QUOTE || byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        this.endLiteral(this.valueKey, null);
        this.valueKey = null;
      } else {
        this.literal += String.fromCharCode(byte);
        return true;
      }
    }
    switch (byte) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1) {
          if (this.expectingKey) this.keyStart = position;
          this.startCollecting();
        }
        return true;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.depth += 1;
        this.result.structuralMarks += 1;
        if (this.depth > this.result.maxDepth) this.result.maxDepth = this.depth;
        if (this.depth > this.depthLimit) {
          this.result.tooDeep = true;
          return false;
        }
        if (this.depth === 1) this.expectingKey = true;
        return true;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.depth -= 1;
        if (this.depth > 0) return true;
        // The top-level object is closed: whatever follows is not part of it.
        this.result.closed = byte === CLOSE_BRACE;
        return false;
      case COLON:
        this.result.structuralMarks += 1;
        if (this.depth === 1 && this.expectingKey) {
          this.expectingKey = false;
          this.valueKey = this.lastKey;
          this.result.hasMembers = true;
          this.noteMember(this.lastKey);
          if (this.lastKey === 'max_tokens') this.result.maxTokensKey = { start: this.keyStart, end: position };
          else if (this.lastKey === 'max_completion_tokens') this.result.namesMaxCompletionTokens = true;
          else if (this.lastKey === 'model' || this.lastKey === 'stream_options') {
            // A later duplicate replaces an earlier one, as in JSON.parse, even when it is no string.
            if (this.lastKey === 'model') this.result.model = null;
            this.locatedKey = this.lastKey;
            this.valueStart = position + 1;
          }
        }
        return true;
      case COMMA:
        this.result.structuralMarks += 1;
        if (this.depth === 1) {
          this.expectingKey = true;
          this.valueKey = null;
        }
        return true;
      default:
        return true;
    }
  }

  private noteMember(key: string | null): void {
    const bit = key === null ? undefined : MEMBER_BITS.get(key);
    if (bit === undefined) return;
    if ((this.seenMembers & bit) !== 0) this.result.repeatedMember ??= key;
    this.seenMembers |= bit;
  }

  /** A later duplicate replaces an earlier one, as in JSON.parse; `literal` is null for a string, object or array. */
  private endLiteral(key: string, literal: string | null): void {
    if (key === 'stream') {
      this.result.stream = literal === 'true' ? true : literal === 'false' ? false : null;
      return;
    }
    const value = literal === null ? Number.NaN : Number(literal);
    if (Number.isFinite(value) && literal !== '') this.result.numbers[key] = value;
    else delete this.result.numbers[key];
  }

  private startCollecting(): void {
    this.collecting = this.depth === 1 && (this.expectingKey || this.valueKey === 'model');
    this.firstChunk = null;
    this.morePieces = null;
    this.hadEscape = false;
    this.pieceBytes = 0;
    this.pieceLimit = this.expectingKey ? MAX_KEY_BYTES : Number.POSITIVE_INFINITY;
    this.overflowed = false;
  }

  private collect(chunk: Buffer, start: number, end: number): void {
    if (!this.collecting || end <= start || this.overflowed) return;
    this.pieceBytes += end - start;
    if (this.pieceBytes > this.pieceLimit) {
      this.overflowed = true;
    } else if (this.firstChunk === null) {
      this.firstChunk = chunk;
      this.firstStart = start;
      this.firstEnd = end;
    } else {
      this.morePieces ??= [this.firstChunk.subarray(this.firstStart, this.firstEnd)];
      this.morePieces.push(chunk.subarray(start, end));
    }
  }

  /** The wanted string's text; for a key, only whether it is one the scan looks for. Null when its escapes are invalid. */
  private collectedText(): string | null {
    const chunk = this.firstChunk;
    if (chunk === null) return '';
    if (this.morePieces === null && !this.hadEscape) {
      if (this.expectingKey) return knownKey(chunk, this.firstStart, this.firstEnd);
      return chunk.toString('utf8', this.firstStart, this.firstEnd);
    }
    const raw = this.morePieces === null ? chunk.subarray(this.firstStart, this.firstEnd) : Buffer.concat(this.morePieces, this.pieceBytes);
    return decodeJsonString(raw);
  }

  private endString(): void {
    this.inString = false;
    if (!this.collecting) return;
    this.collecting = false;
    const text = this.overflowed ? null : this.collectedText();
    this.firstChunk = null;
    this.morePieces = null;
    if (this.expectingKey) {
      this.lastKey = text;
      if (text !== null && text !== OTHER_KEY && this.result.memberInAnotherCase === null) {
        const member = memberInAnotherCase(text);
        if (member !== null) this.result.memberInAnotherCase = { written: text, member };
      }
    } else if (this.valueKey === 'model') {
      this.result.model = text;
    }
  }
}
