import { TOKENIZE_LIMIT_CHARS } from '../spend/estimate.ts';
import { WRITTEN_MEMBERS } from '../protocols/passthrough/adapter.ts';
import { type OutputTally, writtenInAnswer } from './outputTally.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../core/jsonBytes.ts';

/**
 * Bytes a top-level member may take and still be kept. A larger one (an embeddings batch's vectors,
 * an image's base64) is let go as it passes and only measured: were it a model's text, the estimate
 * would count it by its bytes anyway, the tokenizer not being used past TOKENIZE_LIMIT_CHARS.
 */
export const KEPT_MEMBER_BYTES = TOKENIZE_LIMIT_CHARS;

/** Bytes that matter outside strings: in the top-level object, and deeper (only nesting and strings). */
const TOP_MARKS = marksOf([QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COLON, COMMA]);
const DEEP_MARKS = marksOf([QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET]);

const JSON_SPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);

function marksOf(bytes: number[]): Uint8Array {
  const marks = new Uint8Array(256);
  for (const byte of bytes) marks[byte] = 1;
  return marks;
}

/** What a scan kept of an answer: its small members, as an object; and the larger ones' value sizes, by key. */
export interface PassedAnswerMembers {
  /** Null when the answer was no JSON object, was cut short, or its kept members do not parse. */
  kept: object | null;
  droppedValueBytes: ReadonlyMap<string, number>;
  /** The items counted (CountedItems) of the member counted, when it was too large to keep; else null. */
  countedItems: number | null;
  /** The answer opened an object it never closed: it ended cut short. */
  cutShort: boolean;
}

/** Items of a top-level array member to count as they pass: objects holding one of `keys` with a string value. */
export interface CountedItems {
  member: string;
  keys: readonly string[];
}

/** A counted item's keys longer than this are none of those looked for. */
const MAX_ITEM_KEY_BYTES = 32;

/**
 * Reads the top-level members of a JSON object as its bytes pass, keeping each one's raw bytes
 * (by reference to the chunks) until it ends, or, past KEPT_MEMBER_BYTES, only its size: an answer's
 * `usage`, `model` and `error` are read wherever they stand (usage ends an OpenAI embeddings answer,
 * may start another's) with no copy of the rest. Outside the top level only nesting and strings are
 * looked at, skipped over a byte table and, inside strings, by Buffer.indexOf (memchr).
 */
export class TopLevelMembers {
  #depth = 0;
  #started = false;
  #stopped = false;
  #closed = false;
  #inString = false;
  #escaped = false;
  #expectingKey = false;
  /** The member being read: whether one is, its bytes so far (null once past the limit) and how many. */
  #memberOpen = false;
  #member: Buffer[] | null = null;
  #memberBytes = 0;
  #memberKey: string | null = null;
  /** Where its value starts, in bytes from the member's start. */
  #valueOffset = 0;
  /** Where the member's bytes in the chunk being walked start. */
  #pieceStart = 0;
  readonly #kept: Buffer[] = [];
  readonly #dropped = new Map<string, number>();
  readonly #countedItems: CountedItems | null;
  /** Reading the counted member's value, an array: its items, the one being read, and its key being read. */
  #counting = false;
  #itemCount = 0;
  #itemsOfDropped: number | null = null;
  #itemMatched = false;
  #itemKeyExpected = false;
  #itemKey: Buffer[] | null = null;
  #itemKeyStart = 0;
  #lastItemKey: string | null = null;
  /** A key looked for was read: the item matches if its value is a string. */
  #itemValueMatches = false;

  constructor(countedItems: CountedItems | null = null) {
    this.#countedItems = countedItems;
  }

  feed(chunk: Buffer): void {
    if (this.#stopped) {
      this.#checkTrailing(chunk, 0);
      return;
    }
    this.#pieceStart = 0;
    this.#itemKeyStart = 0;
    const end = this.#walk(chunk);
    if (this.#memberOpen) this.#take(chunk.subarray(this.#pieceStart, end));
    if (this.#itemKey !== null) this.#takeItemKey(chunk.subarray(this.#itemKeyStart, end));
    if (this.#stopped) this.#checkTrailing(chunk, end);
  }

  /** After the object only white space may come: more (JSON Lines, a second object) is no JSON answer, as for JSON.parse. */
  #checkTrailing(chunk: Buffer, from: number): void {
    if (!this.#closed) return;
    for (let index = from; index < chunk.length; index += 1) {
      if (!JSON_SPACE.has(chunk[index]!)) {
        this.#closed = false;
        return;
      }
    }
  }

  /** Walks a chunk; returns where the walk stopped (the chunk's end, or just past the closing brace). */
  #walk(chunk: Buffer): number {
    const length = chunk.length;
    let quoteAt = -2;
    let backslashAt = -2;
    let index = 0;
    while (index < length) {
      if (this.#inString) {
        if (this.#escaped) {
          this.#escaped = false;
          index += 1;
          continue;
        }
        if (quoteAt !== -1 && quoteAt < index) quoteAt = chunk.indexOf(QUOTE, index);
        if (backslashAt !== -1 && backslashAt < index) backslashAt = chunk.indexOf(BACKSLASH, index);
        const stop = quoteAt === -1 ? backslashAt : backslashAt === -1 ? quoteAt : Math.min(quoteAt, backslashAt);
        if (stop === -1) return length;
        if (stop === backslashAt) {
          this.#escaped = true;
        } else {
          this.#inString = false;
          if (this.#itemKey !== null) this.#endItemKey(chunk.subarray(this.#itemKeyStart, stop));
        }
        index = stop + 1;
        continue;
      }
      // A counted item's own members are read as the top level's are; deeper, only nesting and strings matter.
      const marks = this.#depth > 1 && !(this.#counting && this.#depth <= 3) ? DEEP_MARKS : TOP_MARKS;
      while (index < length && marks[chunk[index]!] === 0) index += 1;
      if (index === length) return length;
      if (!this.#structure(chunk, index)) return index + 1;
      index += 1;
    }
    return length;
  }

  /** One byte that matters outside strings; false once the scan is over. */
  #structure(chunk: Buffer, index: number): boolean {
    const byte = chunk[index]!;
    if (!this.#started) {
      this.#started = true;
      if (byte !== OPEN_BRACE) return this.#stop();
    }
    if (this.#counting && this.#depth >= 2) this.#itemStructure(byte, index);
    if (this.#depth === 1 && (byte === COMMA || byte === CLOSE_BRACE)) {
      this.#endMember(chunk, index);
      if (byte === COMMA) {
        this.#expectingKey = true;
        return true;
      }
    }
    switch (byte) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expectingKey) this.#startMember(index);
        return true;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        // The counted member's value is no array: there are no items to count.
        if (this.#depth === 1 && byte === OPEN_BRACE) this.#counting = false;
        this.#depth += 1;
        if (this.#depth === 1) this.#expectingKey = true;
        return true;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.#depth -= 1;
        if (this.#depth > 0) return true;
        this.#closed = byte === CLOSE_BRACE;
        return this.#stop();
      case COLON:
        if (this.#depth === 1 && this.#expectingKey) this.#endKey(chunk, index);
        return true;
      default:
        return true;
    }
  }

  #stop(): boolean {
    this.#stopped = true;
    return false;
  }

  #startMember(index: number): void {
    this.#memberOpen = true;
    this.#member = [];
    this.#memberBytes = 0;
    this.#memberKey = null;
    this.#pieceStart = index;
  }

  /** The key is read (it is short, so still held): the value's bytes are counted from here. */
  #endKey(chunk: Buffer, index: number): void {
    this.#expectingKey = false;
    const keyBytes = this.#member === null ? null : Buffer.concat([...this.#member, chunk.subarray(this.#pieceStart, index)]);
    this.#memberKey = keyBytes === null ? null : parseKey(keyBytes);
    this.#valueOffset = this.#memberBytes + index + 1 - this.#pieceStart;
    this.#counting = this.#countedItems !== null && this.#memberKey === this.#countedItems.member;
    this.#itemCount = 0;
  }

  /** A byte that matters inside the counted member's array (depth 2) or one of its items (depth 3). */
  #itemStructure(byte: number, index: number): void {
    if (this.#depth === 2) {
      if (byte !== OPEN_BRACE) return;
      this.#itemMatched = false;
      this.#itemKeyExpected = true;
      this.#itemValueMatches = false;
      return;
    }
    if (this.#depth !== 3) return;
    const valueMatches = this.#itemValueMatches;
    this.#itemValueMatches = false;
    if (byte === QUOTE) {
      if (valueMatches) this.#itemMatched = true;
      if (!this.#itemKeyExpected) return;
      this.#itemKey = [];
      this.#itemKeyStart = index + 1;
    } else if (byte === COLON) {
      this.#itemKeyExpected = false;
      this.#itemValueMatches = this.#lastItemKey !== null && (this.#countedItems?.keys.includes(this.#lastItemKey) ?? false);
    } else if (byte === COMMA) {
      this.#itemKeyExpected = true;
    } else if (byte === CLOSE_BRACE && this.#itemMatched) {
      this.#itemCount += 1;
    }
  }

  #takeItemKey(piece: Buffer): void {
    const held = this.#itemKey;
    if (held === null) return;
    if (held.reduce((bytes, part) => bytes + part.length, piece.length) > MAX_ITEM_KEY_BYTES) this.#itemKey = null;
    else held.push(piece);
  }

  #endItemKey(piece: Buffer): void {
    this.#takeItemKey(piece);
    this.#lastItemKey = this.#itemKey === null ? null : Buffer.concat(this.#itemKey).toString('utf8');
    this.#itemKey = null;
  }

  #endMember(chunk: Buffer, index: number): void {
    if (!this.#memberOpen) return;
    this.#take(chunk.subarray(this.#pieceStart, index));
    if (this.#member !== null) this.#kept.push(Buffer.concat(this.#member));
    else if (this.#memberKey !== null) this.#dropped.set(this.#memberKey, this.#memberBytes - this.#valueOffset);
    if (this.#counting) this.#itemsOfDropped = this.#member === null ? this.#itemCount : null;
    this.#counting = false;
    this.#memberOpen = false;
    this.#member = null;
    this.#memberBytes = 0;
  }

  /** More of the current member's bytes: held until the member passes the limit, then only counted. */
  #take(piece: Buffer): void {
    this.#memberBytes += piece.length;
    if (this.#member === null) return;
    if (this.#memberBytes > KEPT_MEMBER_BYTES) this.#member = null;
    else this.#member.push(piece);
  }

  members(): PassedAnswerMembers {
    const cutShort = this.#started && !this.#stopped;
    const read = { kept: null, droppedValueBytes: this.#dropped, countedItems: this.#itemsOfDropped, cutShort };
    if (!this.#closed) return read;
    try {
      return { ...read, kept: JSON.parse(`{${this.#kept.map((member) => member.toString('utf8')).join(',')}}`) as object };
    } catch {
      return read;
    }
  }
}

/** A member's key from its bytes up to the colon (`"usage"`), or null when it is no JSON string. */
function parseKey(bytes: Buffer): string | null {
  try {
    const key: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

/**
 * The members of an answer passed through, read only once it passes what the log keeps: below
 * that, the log's copy is whole and parsed as it always was, so the common answer costs nothing more.
 * Until then its chunks are held by reference (the log's capture holds the same bytes), then
 * scanned once to catch up, and each later chunk as it passes.
 */
export class LargeAnswerMembers {
  #head: Buffer[] | null = [];
  #scan: TopLevelMembers | null = null;
  readonly #countedItems: CountedItems | null;

  constructor(countedItems: CountedItems | null = null) {
    this.#countedItems = countedItems;
  }

  /** A chunk passed; `captureCut` once the log's copy stopped short of the answer. */
  passed(chunk: Buffer, captureCut: boolean): void {
    if (this.#scan !== null) {
      this.#scan.feed(chunk);
      return;
    }
    this.#head?.push(chunk);
    if (!captureCut || this.#head === null) return;
    const scan = new TopLevelMembers(this.#countedItems);
    for (const held of this.#head) scan.feed(held);
    this.#head = null;
    this.#scan = scan;
  }

  /** What the scan kept; null while the whole answer is in the log's copy. */
  members(): PassedAnswerMembers | null {
    return this.#scan?.members() ?? null;
  }
}

/** What the model wrote: read from the members kept, and counted by their bytes where too large to keep. */
export function writtenInMembers({ kept, droppedValueBytes }: PassedAnswerMembers): OutputTally {
  const tally = writtenInAnswer(kept);
  for (const member of WRITTEN_MEMBERS) tally.answerBytes(droppedValueBytes.get(member) ?? 0);
  return tally;
}
