import { holdsEscapedForm, MAX_ESCAPE_CHARS } from './escapedSecrets.ts';
import { knownSecretForms, REDACTED, replaceSecretForms } from './redact.ts';

/**
 * Keeps the gateway key (every form redact.ts knows: raw, URL-encoded, base64 and base64url at
 * each alignment) out of what the gateway sends back to a client: whole texts (headers, a
 * rewritten body), text that arrives in pieces (a field streamed delta by delta) and bytes (a
 * body relayed chunk by chunk). Only the key is touched, never anything that merely looks like one:
 * the answer is the client's data.
 */

const NO_CLASS = 0;
const EMPTY = Buffer.alloc(0);

/**
 * The forms as one Aho-Corasick automaton over ASCII (a key is printable ASCII, and so are its
 * encodings; any other character leads back to the start). A state is the longest end of the
 * text read so far that begins some form: what a stream must hold back.
 */
class FormAutomaton {
  readonly classOf = new Uint8Array(128);
  readonly stride: number;
  readonly next: Uint16Array | Uint32Array;
  readonly depth: Uint16Array;
  /** Length of the form that ends at this state, 0 if none does. */
  readonly matchChars: Uint16Array;
  /** 1 where the text held covers at least half of every form it could still become. */
  readonly maskOnBreak: Uint8Array;
  /** The characters a form begins with: text holding none of them leaves the start state untouched. */
  readonly firstChars: readonly string[];

  constructor(forms: readonly string[]) {
    this.firstChars = [...new Set(forms.map((form) => form.charAt(0)))];
    let classes = 1;
    for (const form of forms) {
      for (let index = 0; index < form.length; index += 1) {
        const code = form.charCodeAt(index);
        if (code < 128 && this.classOf[code] === NO_CLASS) this.classOf[code] = classes++;
      }
    }
    this.stride = classes;
    const trie: Map<number, number>[] = [new Map()];
    const depth = [0];
    const terminal = [0];
    const shortestForm = [Number.POSITIVE_INFINITY];
    for (const form of forms) {
      let state = 0;
      for (let index = 0; index < form.length; index += 1) {
        const cls = this.classOf[form.charCodeAt(index)] ?? NO_CLASS;
        let child = trie[state]!.get(cls);
        if (child === undefined) {
          child = trie.length;
          trie.push(new Map());
          depth.push(depth[state]! + 1);
          terminal.push(0);
          shortestForm.push(Number.POSITIVE_INFINITY);
          trie[state]!.set(cls, child);
        }
        state = child;
        shortestForm[state] = Math.min(shortestForm[state]!, form.length);
      }
      terminal[state] = form.length;
    }
    const states = trie.length;
    // Two bytes a cell while they do: the table then fits a core's first-level cache.
    this.next = states < 65_536 ? new Uint16Array(states * this.stride) : new Uint32Array(states * this.stride);
    this.depth = Uint16Array.from(depth);
    this.matchChars = new Uint16Array(states);
    this.maskOnBreak = new Uint8Array(states);
    const fail = new Uint32Array(states);
    // Breadth first, so a state's fallback (shorter) is complete before the state itself.
    const queue: number[] = [];
    for (const [cls, child] of trie[0]!) {
      this.next[cls] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head += 1) {
      const state = queue[head]!;
      this.matchChars[state] = terminal[state]! || this.matchChars[fail[state]!]!;
      this.maskOnBreak[state] = depth[state]! * 2 >= shortestForm[state]! ? 1 : 0;
      for (let cls = 0; cls < this.stride; cls += 1) {
        const child = trie[state]!.get(cls);
        const fallback = this.next[fail[state]! * this.stride + cls]!;
        if (child === undefined) {
          this.next[state * this.stride + cls] = fallback;
        } else {
          fail[child] = fallback;
          this.next[state * this.stride + cls] = child;
          queue.push(child);
        }
      }
    }
  }

  /** Whether the text holds a character a form begins with (a native search per such character). */
  mayBeginFormIn(text: string): boolean {
    for (const first of this.firstChars) if (text.includes(first)) return true;
    return false;
  }

  step(state: number, code: number): number {
    return this.next[state * this.stride + (code < 128 ? this.classOf[code]! : NO_CLASS)]!;
  }

  /** The state after reading `text` from `from`: how long an end of it could still begin a form. */
  stateAfter(text: string, from: number): number {
    let state = 0;
    for (let index = from; index < text.length; index += 1) state = this.step(state, text.charCodeAt(index));
    return state;
  }
}

/** What replaces a form where the length must not change (a body whose Content-Length is already sent). */
export function sameLengthMask(length: number): string {
  return length >= REDACTED.length ? REDACTED + '*'.repeat(length - REDACTED.length) : '*'.repeat(length);
}

const sameLengthMaskOf = (replaced: string): string => sameLengthMask(replaced.length);

/**
 * Text that arrives in pieces, passed on piece by piece: nothing is held back except an end that
 * could still be the start of the key, and only until the next piece decides it. A run of at least
 * half the key that breaks off, or that the text ends on, is masked as the key would be.
 */
export class KeyTextStream {
  readonly #automaton: FormAutomaton;
  #state = 0;
  #held = '';
  /** Whether anything was masked so far. */
  masked = false;

  constructor(automaton: FormAutomaton) {
    this.#automaton = automaton;
  }

  get holding(): boolean {
    return this.#held !== '';
  }

  /** The text to pass on now: this piece after what was held, masked, without the end held back. */
  push(piece: string): string {
    const heldChars = this.#held.length;
    // From the start state, text without a form's first character can neither begin nor hold one.
    if (heldChars === 0 && !this.#automaton.mayBeginFormIn(piece)) return piece;
    // The automaton's tables as locals: this loop runs for every character a stream carries.
    const { next, stride, classOf, depth, matchChars, maskOnBreak } = this.#automaton;
    const text = heldChars === 0 ? piece : this.#held + piece;
    let state = this.#state;
    let passed = '';
    let copiedUpTo = 0;
    for (let index = heldChars; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      const cls = code < 128 ? classOf[code]! : NO_CLASS;
      let following = next[state * stride + cls]!;
      if (maskOnBreak[state] === 1 && depth[following]! <= depth[state]!) {
        passed += text.slice(copiedUpTo, index - depth[state]!) + REDACTED;
        copiedUpTo = index;
        this.masked = true;
        following = next[cls]!;
      }
      state = following;
      const matched = matchChars[state]!;
      if (matched !== 0) {
        passed += text.slice(copiedUpTo, index + 1 - matched) + REDACTED;
        copiedUpTo = index + 1;
        this.masked = true;
        state = 0;
      }
    }
    const heldFrom = text.length - depth[state]!;
    this.#state = state;
    this.#held = heldFrom === text.length ? '' : text.slice(heldFrom);
    return copiedUpTo === 0 && heldFrom === text.length ? text : passed + text.slice(copiedUpTo, heldFrom);
  }

  /** The text ended: what was held, unless it is too much of the key to show. */
  end(): string {
    const held = this.#held;
    const longRun = this.#automaton.maskOnBreak[this.#state] === 1;
    this.#held = '';
    this.#state = 0;
    if (held === '' || !longRun) return held;
    this.masked = true;
    return REDACTED;
  }
}

/**
 * Text relayed chunk by chunk. Each chunk costs one native search per form and a look at its last
 * character: only when that character can begin a form is the chunk's end examined and, if it
 * could be the start of the key, held until the next chunk.
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
    const tailFrom = Math.max(0, bytes.length - this.#masker.longestHeldChars);
    const last = bytes[bytes.length - 1];
    const hold =
      last !== undefined && this.#masker.mayBeginForm(last) ? this.#masker.heldSuffixChars(bytes.toString('latin1', tailFrom)) : 0;
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

  /** A whole body, each form (escaped too) masked by one of its own length (as the relay masks it chunk by chunk). */
  maskBytes(bytes: Buffer): Buffer {
    if (!this.holdsFormBytes(bytes)) return bytes;
    // Forms are ASCII: in latin1 text of bytes, offsets and lengths stay those of the bytes.
    return Buffer.from(replaceSecretForms(bytes.toString('latin1'), this.#forms, sameLengthMaskOf), 'latin1');
  }

  /** Masks the values in place; true if any changed. */
  maskHeaderValues(headers: Record<string, string | string[]>): boolean {
    let changed = false;
    for (const name of Object.keys(headers)) {
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
    return new KeyTextStream(this.#automaton);
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
    if (text.length < this.minFormChars) return false;
    for (const form of this.#forms) if (text.includes(form)) return true;
    return holdsEscapedForm(text, this.#forms);
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
    const mayEscape = bytes.includes(PERCENT) || bytes.includes(BACKSLASH) || bytes.includes(AMPERSAND);
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

  /** How many of the last characters could be the start of a form. */
  heldSuffixChars(text: string): number {
    const last = text.charCodeAt(text.length - 1);
    if (Number.isNaN(last) || !this.mayBeginForm(last)) return 0;
    return this.#automaton.depth[this.#automaton.stateAfter(text, Math.max(0, text.length - this.longestHeldChars))]!;
  }

  isLongRun(held: string): boolean {
    return this.#automaton.maskOnBreak[this.#automaton.stateAfter(held, 0)] === 1;
  }
}
