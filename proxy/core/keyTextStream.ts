import { type FormAutomaton, NO_CLASS } from './formAutomaton.ts';
import type { KeyMasker } from './keyMasker.ts';
import { REDACTED } from './redact.ts';

/** The characters an escape begins with: a piece without any can hold no part of an escaped form. */
const MAY_BEGIN_ESCAPE = /[%\\&]/;

/** The spans one walk masks, reused: a walk runs for every piece a stream carries. */
const MASKED_SPANS: number[] = [];

/**
 * Reads `text` from `from` on, the automaton in `state`: adds to `spans` (as from, to pairs) what a
 * stream masks, each form as written and each run of at least half the key where it breaks off;
 * gives the state it ends in. The one rule of the text stream and of what must agree with it.
 */
export function walkForms(automaton: FormAutomaton, text: string, from: number, state: number, spans: number[]): number {
  // The automaton's tables as locals: this loop runs for every character a stream carries.
  const { next, stride, classOf, depth, matchChars, maskOnBreak } = automaton;
  for (let index = from; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const cls = code < 128 ? classOf[code]! : NO_CLASS;
    let following = next[state * stride + cls]!;
    if (maskOnBreak[state] === 1 && depth[following]! <= depth[state]!) {
      spans.push(index - depth[state]!, index);
      following = next[cls]!;
    }
    state = following;
    const matched = matchChars[state]!;
    if (matched !== 0) {
      spans.push(index + 1 - matched, index + 1);
      state = 0;
    }
  }
  return state;
}

/**
 * Text that arrives in pieces, passed on piece by piece: nothing is held back except an end that
 * could still be the start of the key as written, and only until the next piece decides it. A run
 * of at least half the key that breaks off, or that the text ends on, is masked as the key would be.
 */
class RawKeyTextStream {
  readonly #automaton: FormAutomaton;
  /** The automaton's state: the last `depth[state]` characters read are `#shown` then `#held`. */
  #state = 0;
  #held = '';
  /** The start of the run that was handed on (`handOn`): read with what follows, never passed on again. */
  #shown = '';
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
    const readChars = this.#shown.length + this.#held.length;
    // From the start state, text without a form's first character can neither begin nor hold one.
    if (readChars === 0 && !this.#automaton.mayBeginFormIn(piece)) return piece;
    const text = readChars === 0 ? piece : this.#shown + this.#held + piece;
    const spans = MASKED_SPANS;
    spans.length = 0;
    const state = walkForms(this.#automaton, text, readChars, this.#state, spans);
    let passed = '';
    // What was shown already is never passed again: a mask that begins in it covers only what follows.
    let copiedUpTo = this.#shown.length;
    for (let at = 0; at < spans.length; at += 2) {
      passed += text.slice(copiedUpTo, Math.max(copiedUpTo, spans[at]!)) + REDACTED;
      copiedUpTo = spans[at + 1]!;
    }
    if (spans.length > 0) this.masked = true;
    const runFrom = text.length - this.#automaton.depth[state]!;
    const heldFrom = Math.max(runFrom, copiedUpTo);
    this.#state = state;
    this.#shown = runFrom < copiedUpTo ? text.slice(runFrom, copiedUpTo) : '';
    this.#held = heldFrom === text.length ? '' : text.slice(heldFrom);
    return copiedUpTo === 0 && heldFrom === text.length ? text : passed + text.slice(copiedUpTo, heldFrom);
  }

  /** `push`, as if `shown` had been read before it and passed on. */
  pushAfter(shown: string, piece: string): string {
    this.#state = this.#automaton.stateAfter(shown, 0);
    this.#shown = shown.slice(shown.length - this.#automaton.depth[this.#state]!);
    this.#held = '';
    return this.push(piece);
  }

  /** Gives back the run it was reading, shown and held apart, and starts afresh: read again with what follows, it leads to the same state. */
  release(): { shown: string; held: string } {
    const run = { shown: this.#shown, held: this.#held };
    this.#shown = '';
    this.#held = '';
    this.#state = 0;
    return run;
  }

  /** The text ended: what was held, unless it is too much of the key to show. */
  end(): string {
    const held = this.#held;
    const longRun = this.#automaton.maskOnBreak[this.#state] === 1;
    this.#held = '';
    this.#shown = '';
    this.#state = 0;
    if (held === '' || !longRun) return held;
    this.masked = true;
    return REDACTED;
  }
}

/** How many characters two texts begin with alike. */
function sharedStartChars(a: string, b: string): number {
  let index = 0;
  while (index < a.length && index < b.length && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

/**
 * Text that arrives in pieces, the key masked as written and escaped (a model that writes a URL
 * with the key percent-encoded, a few characters a delta): a piece with no character an escape
 * begins with goes straight to the raw forms' stream; otherwise the text is masked and an end that
 * could begin an escaped form is held until the next piece decides, before it goes on.
 */
export class KeyTextStream {
  readonly #masker: KeyMasker;
  readonly #raw: RawKeyTextStream;
  #held = '';
  /** Text handed on (`handOn`) that may begin an escaped form: read again with the next piece, never passed on again. */
  #shown = '';
  #masked = false;

  constructor(masker: KeyMasker, automaton: FormAutomaton) {
    this.#masker = masker;
    this.#raw = new RawKeyTextStream(automaton);
  }

  get holding(): boolean {
    return this.#held !== '' || this.#raw.holding;
  }

  /** Whether anything was masked so far. */
  get masked(): boolean {
    return this.#masked || this.#raw.masked;
  }

  push(piece: string): string {
    if (this.#held === '' && this.#shown === '' && !MAY_BEGIN_ESCAPE.test(piece)) return this.#raw.push(piece);
    // The raw stream's run comes first: a key whose start is written as is (`sk`, held there)
    // and whose rest is escaped is one form only when both are read together.
    const run = this.#raw.release();
    const shown = this.#shown + run.shown;
    this.#shown = '';
    const unmasked = shown + run.held + this.#held + piece;
    let text = this.#masker.maskText(unmasked);
    this.#masked ||= text !== unmasked;
    let shownChars = shown.length;
    if (shownChars > 0 && !text.startsWith(shown)) {
      // A mask begins in what was shown: that stays as shown, the rest goes on from the mask.
      text = text.slice(sharedStartChars(text, unmasked));
      shownChars = 0;
    }
    const heldFrom = text.length - this.#masker.escapedHeldChars(text);
    if (heldFrom < shownChars) {
      // What could begin an escaped form starts in what was shown: it is all read again with the next piece.
      this.#shown = text.slice(heldFrom, shownChars);
      this.#held = text.slice(shownChars);
      return '';
    }
    this.#held = text.slice(heldFrom);
    return this.#raw.pushAfter(text.slice(0, shownChars), text.slice(shownChars, heldFrom));
  }

  /**
   * The text pauses (its choice goes on to another field): what it holds is passed on now, a run of
   * half the key or more masked, and read again with the next piece, so a key the text then goes on
   * to spell is masked from that piece on: who joins the pieces never has it whole.
   */
  handOn(): string {
    const run = this.#raw.release();
    const handed = run.held + this.#held;
    this.#shown += run.shown + handed;
    this.#held = '';
    if (handed === '') return '';
    if (!this.#masker.isLongRun(this.#shown)) return handed;
    this.#masked = true;
    return REDACTED;
  }

  /** The text ended: what was held, unless it is too much of the key to show. */
  end(): string {
    const held = this.#held;
    this.#held = '';
    this.#shown = '';
    const longRun = held !== '' && this.#masker.isLongRun(held);
    this.#masked ||= longRun;
    return this.#raw.push(longRun ? REDACTED : held) + this.#raw.end();
  }
}
