import { OutputTally } from './outputTally.ts';

/**
 * What a model wrote, as its stream's observer reported it (streamRelay.ts sinkFor): the answer's
 * text, for the log and the window, kept up to the capture limit, its whole length counted past it
 * for the in-flight estimate; and all it wrote, for a usage estimate (OutputTally).
 */
export class WrittenOutput {
  readonly #limitChars: number;
  #textParts: string[] | null = null;
  #textChars = 0;
  /** UTF-16 units of all the answer's text received (the parts kept stop at the limit). */
  #allTextChars = 0;
  /** The parts already measured in UTF-8 bytes, for the bytes-per-character ratio. */
  #measuredParts = 0;
  #measuredChars = 0;
  #measuredBytes = 0;
  readonly tally = new OutputTally();

  constructor(limitChars: number) {
    this.#limitChars = limitChars;
  }

  /** A piece of the answer's text. */
  text(piece: string): void {
    this.#textParts ??= [];
    if (this.#textChars < this.#limitChars) {
      this.#textParts.push(piece);
      this.#textChars += piece.length;
    }
    this.#allTextChars += piece.length;
    this.tally.answer(piece);
  }

  /** The answer's text as kept; null when none came. */
  answerText(): string | null {
    return this.#textParts === null ? null : this.#textParts.join('');
  }

  /** UTF-8 bytes of all the answer's text so far: each part kept is measured once, and their ratio applied to the whole. */
  answerTextBytes(): number {
    const parts = this.#textParts ?? [];
    for (; this.#measuredParts < parts.length; this.#measuredParts += 1) {
      const part = parts[this.#measuredParts] ?? '';
      this.#measuredChars += part.length;
      this.#measuredBytes += Buffer.byteLength(part);
    }
    const bytesPerChar = this.#measuredChars > 0 ? this.#measuredBytes / this.#measuredChars : 1;
    return Math.round(this.#allTextChars * bytesPerChar);
  }

  /** A piece of reasoning, a tool call's arguments or a refusal. */
  other(piece: string): void {
    this.tally.other(piece);
  }

  /** Output that came with no text to count, only its size: a Messages `redacted_thinking` block's decoded bytes. */
  opaque(bytes: number): void {
    this.tally.opaque(bytes);
  }

  /** A piece of a thinking block's visible thinking, by the block's index. */
  thinking(blockIndex: number, piece: string): void {
    this.tally.thinking(blockIndex, piece);
  }

  /** The decoded bytes of a thinking block's signature so far: on Claude 4 models it holds more than the block shows. */
  thinkingSignature(blockIndex: number, signatureBytes: number): void {
    this.tally.thinkingSignature(blockIndex, signatureBytes);
  }
}
