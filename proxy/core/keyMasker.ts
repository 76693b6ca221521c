import {
  escapedHeldChars,
  holdsEscapedForm,
  holdsWrappedLineBytes,
  MAX_ESCAPE_CHARS,
  mayEndEscape,
  unescapedReading,
} from './escapedSecrets.ts';
import { FormAutomaton, NO_CLASS } from './formAutomaton.ts';
import { KeyTextStream, walkForms } from './keyTextStream.ts';
import { knownSecretForms, REDACTED, replaceSecretForms } from './redact.ts';

/**
 * Keeps the gateway key (every form redact.ts knows: raw, URL-encoded, base64 and base64url at
 * each alignment, also escaped as escapedSecrets.ts reads escapes) out of what the gateway sends
 * back to a client: whole texts (headers, a rewritten body), text that arrives in pieces (a field
 * streamed delta by delta) and bytes (a body relayed chunk by chunk). Only the key is touched,
 * never anything that merely looks like one: the answer is the client's data.
 */

const EMPTY = Buffer.alloc(0);
const SPAN_MARK = '\u0000';

/** What replaces a form where the length must not change (a body whose Content-Length is already sent). */
export function sameLengthMask(length: number): string {
  return length >= REDACTED.length ? REDACTED + '*'.repeat(length - REDACTED.length) : '*'.repeat(length);
}

const sameLengthMaskOf = (replaced: string): string => sameLengthMask(replaced.length);

/**
 * Text relayed chunk by chunk. Each chunk costs one native search per form, one for an escape of
 * a character the forms hold (escapedSecrets.ts; only a chunk with one is read unescaped), and a
 * look at its last character: only when that character can begin a form or end an escape is the
 * chunk's end examined and, if it could be the start of the key as written or escaped, held until
 * the next chunk.
 */
export class KeyChunkStream {
  readonly #masker: KeyMasker;
  #held = '';
  masked = false;

  constructor(masker: KeyMasker) {
    this.#masker = masker;
  }

  get holding(): boolean {
    return this.#held !== '';
  }

  push(chunk: string): string {
    let text = this.#held === '' ? chunk : this.#held + chunk;
    if (this.#masker.holdsForm(text)) {
      text = this.#masker.maskText(text);
      this.masked = true;
    }
    const hold = this.#masker.heldSuffixChars(text);
    this.#held = hold === 0 ? '' : text.slice(text.length - hold);
    return hold === 0 ? text : text.slice(0, text.length - hold);
  }

  /** The body ended: what was held, unless it is too much of the key to show. */
  end(): string {
    const held = this.#held;
    this.#held = '';
    if (held === '' || !this.#masker.isLongRun(held)) return held;
    this.masked = true;
    return REDACTED;
  }
}

/** Chunks up to this size are searched as text: a native Buffer search costs more to call than to run. */
const SEARCH_AS_TEXT_BYTES = 16 * 1024;
const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const AMPERSAND = 0x26;

/** Bytes relayed chunk by chunk, each form masked by one of its own length (a Content-Length was sent). */
export class KeyByteStream {
  readonly #masker: KeyMasker;
  #held: Buffer = EMPTY;

  constructor(masker: KeyMasker) {
    this.#masker = masker;
  }

  push(chunk: Buffer): Buffer {
    const bytes = this.#masker.maskBytes(this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]));
    const tailFrom = Math.max(0, bytes.length - this.#masker.longestEscapedChars);
    const last = bytes[bytes.length - 1];
    const hold =
      last !== undefined && this.#masker.mayEndHeldText(last) ? this.#masker.heldSuffixChars(bytes.toString('latin1', tailFrom)) : 0;
    // A copy: the chunk's memory is the socket's reader's, not ours to keep.
    this.#held = hold === 0 ? EMPTY : Buffer.from(bytes.subarray(bytes.length - hold));
    return hold === 0 ? bytes : bytes.subarray(0, bytes.length - hold);
  }

  /** The body ended: what was held, unless it is too much of the key to show. */
  end(): Buffer {
    const held = this.#held;
    this.#held = EMPTY;
    if (held.length === 0 || !this.#masker.isLongRun(held.toString('latin1'))) return held;
    return Buffer.from(sameLengthMask(held.length), 'latin1');
  }
}

/**
 * A shorter "key" (a local gateway's `none`, `test`) is no secret worth guarding, and masking it
 * would cut that word out of every answer a tool gets.
 */
export const MIN_MASKED_KEY_CHARS = 8;

/**
 * The secrets a header name is searched for: a dropped name is a header lost, and a shorter secret
 * is a word names hold by chance (`x` in every `x-request-id`, `token` in `x-ratelimit-remaining-tokens`).
 */
export function headerNameSecrets(secrets: string[]): string[] {
  // The same list when nothing is left out: masking caches its forms by the list.
  return secrets.every((secret) => secret.length >= MIN_MASKED_KEY_CHARS)
    ? secrets
    : secrets.filter((secret) => secret.length >= MIN_MASKED_KEY_CHARS);
}

/** Keys masked at once; more than the profiles of one run would be unusual. */
const MAX_CACHED_MASKERS = 8;
const maskersByKey = new Map<string, KeyMasker>();

export class KeyMasker {
  readonly #forms: readonly string[];
  readonly #formBytes: readonly Buffer[];
  readonly #automaton: FormAutomaton;
  /** No text shorter than this can hold a form: most header values are skipped on their length. */
  readonly minFormChars: number;
  readonly #maxFormChars: number;

  private constructor(keys: readonly string[]) {
    this.#forms = knownSecretForms(keys.filter((key) => key.length >= MIN_MASKED_KEY_CHARS));
    this.#formBytes = this.#forms.map((form) => Buffer.from(form, 'latin1'));
    this.#automaton = new FormAutomaton(this.#forms);
    this.minFormChars = Math.min(...this.#forms.map((form) => form.length));
    this.#maxFormChars = Math.max(0, ...this.#forms.map((form) => form.length));
  }

  /** Built once per key (a few hundred automaton states), then shared. */
  static for(key: string): KeyMasker {
    return KeyMasker.forKeys([key]);
  }

  /** Every key of a key pool at once: an answer must show none of them, whichever key it was sent with. */
  static forKeys(keys: readonly string[]): KeyMasker {
    // Asked for every exchange: a single key (nearly every profile's) is its own cache key, not joined anew.
    const cacheKey = keys.length === 1 ? (keys[0] as string) : keys.join('\n');
    let masker = maskersByKey.get(cacheKey);
    if (masker === undefined) {
      masker = new KeyMasker(keys);
      if (maskersByKey.size >= MAX_CACHED_MASKERS) maskersByKey.delete(maskersByKey.keys().next().value ?? '');
      maskersByKey.set(cacheKey, masker);
    }
    return masker;
  }

  maskText(text: string): string {
    return text.length < this.minFormChars ? text : replaceSecretForms(text, this.#forms);
  }

  /** Where the text holds a form, as written or escaped: the spans a mask would replace, in order. */
  maskedSpans(text: string): Array<{ from: number; to: number }> {
    if (!this.holdsForm(text)) return [];
    // A character no form holds, nor text worth masking: where the filled text has it, a form was.
    const filled = replaceSecretForms(text, this.#forms, (replaced) => SPAN_MARK.repeat(replaced.length));
    const spans: Array<{ from: number; to: number }> = [];
    let from = -1;
    // Every mask has the length of what it replaced: offsets in the filled text are the text's.
    for (let index = 0; index <= filled.length; index += 1) {
      const marked = index < filled.length && filled[index] === SPAN_MARK && text[index] !== SPAN_MARK;
      if (marked && from === -1) from = index;
      else if (!marked && from !== -1) {
        spans.push({ from, to: index });
        from = -1;
      }
    }
    return spans;
  }

  /**
   * `maskedSpans`, and each run of half the key or more that breaks off (or, when the text `ended`,
   * that it ends on): what a text stream masks of the same text (keyTextStream.ts), for what must
   * agree with a streamed field (its logprob tokens).
   */
  streamedSpans(text: string, ended: boolean): Array<{ from: number; to: number }> {
    const spans = this.maskedSpans(text);
    if (!this.#automaton.mayBeginFormIn(text)) return spans;
    const walked: number[] = [];
    const state = walkForms(this.#automaton, text, 0, 0, walked);
    if (ended && this.#automaton.maskOnBreak[state] === 1) walked.push(text.length - this.#automaton.depth[state]!, text.length);
    for (let at = 0; at < walked.length; at += 2) spans.push({ from: walked[at]!, to: walked[at + 1]! });
    spans.sort((a, b) => a.from - b.from);
    // A form as written is found by both: overlapping spans become one.
    const merged: Array<{ from: number; to: number }> = [];
    for (const span of spans) {
      const last = merged[merged.length - 1];
      if (last !== undefined && span.from < last.to) last.to = Math.max(last.to, span.to);
      else merged.push({ ...span });
    }
    return merged;
  }

  /** A whole body, each form (escaped too) masked by one of its own length (as the relay masks it chunk by chunk). */
  maskBytes(bytes: Buffer): Buffer {
    if (!this.holdsFormBytes(bytes)) return bytes;
    // Forms are ASCII: in latin1 text of bytes, offsets and lengths stay those of the bytes.
    return Buffer.from(replaceSecretForms(bytes.toString('latin1'), this.#forms, sameLengthMaskOf), 'latin1');
  }

  /**
   * Masks the values in place, and drops a header whose name holds the key (a name cannot hold the
   * mask: brackets are no token characters, RFC 9110 section 5.6.2); true if any changed.
   */
  maskHeaders(headers: Record<string, string | string[]>): boolean {
    let changed = false;
    for (const name of Object.keys(headers)) {
      if (this.holdsForm(name)) {
        delete headers[name];
        changed = true;
        continue;
      }
      const value = headers[name]!;
      if (typeof value === 'string') {
        const masked = this.maskText(value);
        if (masked !== value) {
          headers[name] = masked;
          changed = true;
        }
      } else if (value.some((line) => this.maskText(line) !== line)) {
        headers[name] = value.map((line) => this.maskText(line));
        changed = true;
      }
    }
    return changed;
  }

  textStream(): KeyTextStream {
    return new KeyTextStream(this, this.#automaton);
  }

  /** Decoded text relayed chunk by chunk (an event stream, re-framed anyway): each form becomes the word. */
  chunkStream(): KeyChunkStream {
    return new KeyChunkStream(this);
  }

  byteStream(): KeyByteStream {
    return new KeyByteStream(this);
  }

  /** Whether the text holds a form as written, or escaped (escapedSecrets.ts). */
  holdsForm(text: string): boolean {
    return this.holdsFormAsWritten(text) || this.holdsEscapedForm(text);
  }

  /** Whether the text holds a form as written (not escaped). */
  holdsFormAsWritten(text: string): boolean {
    if (text.length < this.minFormChars) return false;
    for (const form of this.#forms) if (text.includes(form)) return true;
    return false;
  }

  /** Whether the text holds a form only escaped: its reader's parse would spell out the key the raw search missed. */
  holdsEscapedForm(text: string): boolean {
    return text.length >= this.minFormChars && holdsEscapedForm(text, this.#forms);
  }

  holdsFormBytes(bytes: Buffer): boolean {
    if (bytes.length < this.minFormChars) return false;
    if (bytes.length <= SEARCH_AS_TEXT_BYTES) return this.holdsForm(bytes.toString('latin1'));
    for (const form of this.#formBytes) if (bytes.includes(form)) return true;
    // A large body is made text only when it holds a character an escape begins with.
    // A line break may join two lines of a base64 form (escapedSecrets.ts).
    const mayEscape = bytes.includes(PERCENT) || bytes.includes(BACKSLASH) || bytes.includes(AMPERSAND) || holdsWrappedLineBytes(bytes);
    return mayEscape && holdsEscapedForm(bytes.toString('latin1'), this.#forms);
  }

  mayBeginForm(code: number): boolean {
    return code < 128 && this.#automaton.classOf[code] !== NO_CLASS;
  }

  /** No form, however escaped, is longer than this. */
  get longestEscapedChars(): number {
    return this.#maxFormChars * MAX_ESCAPE_CHARS;
  }

  /** No end longer than this can still begin a form (a whole form is masked, not held). */
  get longestHeldChars(): number {
    return this.#maxFormChars - 1;
  }

  /** Whether text ending with this character may have to be held: it may begin a form, or end an escape. */
  mayEndHeldText(code: number): boolean {
    return this.mayBeginForm(code) || mayEndEscape(code);
  }

  /** How many of the last characters could be the start of a form, as written or escaped. */
  heldSuffixChars(text: string): number {
    const last = text.charCodeAt(text.length - 1);
    if (Number.isNaN(last) || !this.mayEndHeldText(last)) return 0;
    const asWritten = this.mayBeginForm(last) ? this.#readingHeldChars(text) : 0;
    return Math.max(asWritten, this.escapedHeldChars(text));
  }

  /** How many of the last characters could be the start of a form that holds an escape. */
  escapedHeldChars(text: string): number {
    const tail = text.length > this.longestEscapedChars ? text.slice(text.length - this.longestEscapedChars) : text;
    return escapedHeldChars(tail, (reading) => this.#readingHeldChars(reading));
  }

  #readingHeldChars(text: string): number {
    return this.#automaton.depth[this.#automaton.stateAfter(text, Math.max(0, text.length - this.longestHeldChars))]!;
  }

  isLongRun(held: string): boolean {
    return this.#automaton.maskOnBreak[this.#automaton.stateAfter(unescapedReading(held, this.#forms) ?? held, 0)] === 1;
  }
}
