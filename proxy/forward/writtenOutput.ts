import { OutputTally } from './outputTally.ts';

/**
 * What a model wrote, as its stream's observer reported it (streamRelay.ts sinkFor): the answer's
 * text, for the log and the window, kept up to the capture limit, its whole length counted past it
 * for the in-flight estimate; and all it wrote, for a usage estimate (OutputTally). The answer's
 * pieces are held once for both: the log reads the first of them, the tally all of them while it
 * tokenizes; past both limits none is held.
 */
export class WrittenOutput {
  readonly #limitChars: number;
  #textCame = false;
  /** The answer's pieces: the first `#loggedParts` are the log's; the tally adds the rest while it keeps texts. */
  readonly #textParts: string[] = [];
  #loggedParts = 0;
  #textChars = 0;
  /** UTF-16 units of all the answer's text received (the parts kept stop at the limit). */
  #allTextChars = 0;
  /** The parts already measured in UTF-8 bytes, for the bytes-per-character ratio. */
  #measuredParts = 0;
  #measuredChars = 0;
  #measuredBytes = 0;
  readonly tally = new OutputTally(this.#textParts);

  constructor(limitChars: number) {
    this.#limitChars = limitChars;
  }

  /** A piece of the answer's text. */
  text(piece: string): void {
    this.#textCame = true;
    const logged = this.#textChars < this.#limitChars;
    if (logged) {
      this.#loggedParts += 1;
      this.#textChars += piece.length;
    }
    this.#allTextChars += piece.length;
    // While the tally keeps texts it adds the piece to the shared parts itself.
    if (!this.tally.keepsTexts && logged) this.#textParts.push(piece);
    this.tally.answer(piece);
    // Once the tally only measures, the parts beyond the log's are let go.
    if (!this.tally.keepsTexts && this.#textParts.length > this.#loggedParts) this.#textParts.length = this.#loggedParts;
  }

  /** Pieces of the answer's text held, for the log and the estimate together. */
  get heldTextPieces(): number {
    return this.#textParts.length;
  }

  /** The answer's text as kept; null when none came. */
  answerText(): string | null {
    return this.#textCame ? this.#textParts.slice(0, this.#loggedParts).join('') : null;
  }

  /** UTF-8 bytes of all the answer's text so far: each part kept is measured once, and their ratio applied to the whole. */
  answerTextBytes(): number {
    for (; this.#measuredParts < this.#loggedParts; this.#measuredParts += 1) {
      const part = this.#textParts[this.#measuredParts] ?? '';
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
