import type { KeyMasker } from '../../core/keyMasker.ts';
import { isRecord } from '../../core/isRecord.ts';
import { maskedIfLongRun, maskTokens, tokensOf } from './logprobTokens.ts';

type Json = Record<string, unknown>;
/** The lists of a choice's logprobs that hold its text token by token. */
const TOKEN_LISTS = ['content', 'refusal'] as const;

/**
 * A stream's logprob entries, per choice and list: a client joins their tokens into the text, so
 * a key streamed a token a chunk is in no one chunk. The entries whose tokens end in what could
 * begin the key are held back, whole (their token and logprob stay together), and go out with the
 * next chunk's entries or at the choice's finish; the tokens are masked where the field's text
 * stream masks the text they join into.
 */
export class LogprobGuard {
  readonly #masker: KeyMasker;
  readonly #held = new Map<string, unknown[]>();
  masked = false;

  constructor(masker: KeyMasker) {
    this.#masker = masker;
  }

  get holding(): boolean {
    return this.#held.size > 0;
  }

  /** The choices with entries held back. */
  heldChoices(): number[] {
    return [...new Set([...this.#held.keys()].map((key) => Number(key.slice(0, key.indexOf(' ')))))];
  }

  /** Guards the choice's entries in place (at its finish, what was held goes too); true if the chunk changed. */
  guard(choice: Json, index: number, finished: boolean): boolean {
    const logprobs = choice.logprobs;
    // Most chunks carry `logprobs: null` and nothing is held: one look at each.
    if (!isRecord(logprobs) && (this.#held.size === 0 || !this.#holds(index))) return false;
    let changed = false;
    for (const list of TOKEN_LISTS) {
      const key = `${index} ${list}`;
      const held = this.#held.get(key) ?? [];
      const arrived = isRecord(logprobs) && Array.isArray(logprobs[list]) ? (logprobs[list] as unknown[]) : [];
      if (held.length === 0 && arrived.length === 0) continue;
      const entries = held.length === 0 ? arrived : [...held, ...arrived];
      // Masked as the field's own stream masks it (a run of half the key that breaks off too): the joined tokens are its text.
      let masked = maskTokens(entries, (joined) => this.#masker.streamedSpans(joined, finished));
      let holdFrom = this.#heldFrom(entries);
      if (finished) {
        // What is still held could begin an escaped form, which the stream's walk does not read: the long-run rule on the whole.
        masked = maskedIfLongRun(entries.slice(holdFrom), this.#masker) || masked;
        holdFrom = entries.length;
      }
      this.masked ||= masked;
      if (holdFrom < entries.length) this.#held.set(key, entries.slice(holdFrom));
      else this.#held.delete(key);
      if (held.length === 0 && holdFrom === entries.length && !masked) continue;
      if (!isRecord(choice.logprobs)) choice.logprobs = { content: null, refusal: null };
      (choice.logprobs as Json)[list] = entries.slice(0, holdFrom);
      changed = true;
    }
    return changed;
  }

  #holds(index: number): boolean {
    return TOKEN_LISTS.some((list) => this.#held.has(`${index} ${list}`));
  }

  /** The first entry whose token reaches into the end that could begin a form. */
  #heldFrom(entries: readonly unknown[]): number {
    const tokens = tokensOf(entries);
    let heldChars = this.#masker.heldSuffixChars(tokens.join(''));
    let from = tokens.length;
    while (heldChars > 0 && from > 0) {
      from -= 1;
      heldChars -= (tokens[from] as string).length;
    }
    return from;
  }
}
