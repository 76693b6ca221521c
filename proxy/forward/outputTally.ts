import { readChatCompletion } from '../protocols/chat/chatShapes.ts';
import { RelayThinkingReader } from '../protocols/chat/relayThinking.ts';
import {
  answerOpaqueOutputBytes,
  answerOtherOutputTexts,
  answerSignedThinking,
  answerTexts,
  type SignedThinking,
} from '../protocols/messageText.ts';
import { TOKENIZE_LIMIT_CHARS } from '../spend/estimate.ts';

/** What a tally holds for the estimate: texts to tokenize, or past the limit only their bytes. */
export interface WrittenForEstimate {
  answerText: string;
  otherText: string;
  /** UTF-8 bytes of both texts, once together they passed TOKENIZE_LIMIT_CHARS (the texts are then empty); else null. */
  textBytes: number | null;
  opaqueBytes: number;
  /** Thinking blocks whose signature may hold more than they show; past the limit their visible thinking is '' and only its bytes count. */
  signedThinking: SignedThinkingSize[];
}

/** A signed thinking block as the estimate weighs it: its visible thinking (also among the other text), measured too. */
export interface SignedThinkingSize extends SignedThinking {
  visibleBytes: number;
}

/** A thinking block as it came: the pieces it showed (let go past the limit), their bytes, and its signature's. */
interface ThinkingBlock {
  shownParts: string[];
  shownBytes: number;
  signatureBytes: number;
}

/**
 * Everything a model wrote, as a usage estimate counts it (accounting.ts) and the gateway bills it:
 * the answer's text; the rest it wrote (reasoning, a refusal, tool calls); and the bytes of what came
 * with no text to count. It is fed all of an answer as it passes, not the log's copy, which stops at
 * the capture limit. The texts are kept to be tokenized, each on its own (a thinking block and a text
 * block are counted the same whichever order a protocol gives them in), until together they pass
 * TOKENIZE_LIMIT_CHARS, where the tokenizer is not used: then only their bytes are counted on.
 * Thinking is also kept by its block, to be weighed against the block's signature.
 */
export class OutputTally {
  #answerParts: string[];
  #otherParts: string[] = [];
  #chars = 0;
  #textBytes: number | null = null;
  #opaqueBytes = 0;
  /** By the block's index: a signature may come in pieces, or after the next block started. */
  readonly #thinkingBlocks = new Map<number, ThinkingBlock>();

  /** `answerParts`: where the answer's pieces are held, shared with the log's copy of a stream's text (writtenOutput.ts). */
  constructor(answerParts: string[] = []) {
    this.#answerParts = answerParts;
  }

  /** Whether it still holds the texts to tokenize them; past TOKENIZE_LIMIT_CHARS it only measures them. */
  get keepsTexts(): boolean {
    return this.#textBytes === null;
  }

  /** What an answer no reading could take apart wrote, counted from its bytes as text past the tokenizer's limit is. */
  static ofBytes(answerBytes: number): OutputTally {
    const tally = new OutputTally();
    tally.#textBytes = answerBytes;
    return tally;
  }

  /** A piece of the answer's text. */
  answer(piece: string): void {
    this.#add(this.#answerParts, piece);
  }

  /** A piece of reasoning, a refusal or a tool call. */
  other(piece: string): void {
    this.#add(this.#otherParts, piece);
  }

  /** Output with no text to count, by its size. */
  opaque(bytes: number): void {
    this.#opaqueBytes += bytes;
  }

  /** A piece of a thinking block's visible thinking, streamed: other output, and its block's. */
  thinking(blockIndex: number, piece: string): void {
    this.other(piece);
    this.#shown(blockIndex, piece);
  }

  /** The decoded bytes of a thinking block's signature so far. */
  thinkingSignature(blockIndex: number, signatureBytes: number): void {
    this.#block(blockIndex).signatureBytes = signatureBytes;
  }

  /** A whole answer's signed thinking block: its visible thinking, already given as other output, and its signature. */
  signedThinking(blockIndex: number, visibleThinking: string, signatureBytes: number): void {
    this.#shown(blockIndex, visibleThinking);
    this.thinkingSignature(blockIndex, signatureBytes);
  }

  #block(blockIndex: number): ThinkingBlock {
    let block = this.#thinkingBlocks.get(blockIndex);
    if (block === undefined) {
      block = { shownParts: [], shownBytes: 0, signatureBytes: 0 };
      this.#thinkingBlocks.set(blockIndex, block);
    }
    return block;
  }

  #shown(blockIndex: number, piece: string): void {
    const block = this.#block(blockIndex);
    block.shownBytes += Buffer.byteLength(piece);
    // The same strings as the other output's, shared; past the limit only their bytes count.
    if (this.#textBytes === null) block.shownParts.push(piece);
  }

  /** Answer text too large to have been kept, known by its UTF-8 bytes: counted as text past the limit is. */
  answerBytes(bytes: number): void {
    if (bytes === 0) return;
    this.#chars += bytes;
    this.#textBytes = this.#measuredTextBytes() + bytes;
  }

  #add(parts: string[], piece: string): void {
    if (this.#textBytes !== null) {
      this.#textBytes += Buffer.byteLength(piece);
      return;
    }
    parts.push(piece);
    this.#chars += piece.length;
    if (this.#chars > TOKENIZE_LIMIT_CHARS) this.#textBytes = this.#measuredTextBytes();
  }

  /** The texts' bytes, from now on only measured: what was kept is measured once and let go (a stream's log keeps its own part). */
  #measuredTextBytes(): number {
    if (this.#textBytes !== null) return this.#textBytes;
    const bytes = [...this.#answerParts, ...this.#otherParts].reduce((sum, part) => sum + Buffer.byteLength(part), 0);
    this.#answerParts = [];
    this.#otherParts = [];
    for (const block of this.#thinkingBlocks.values()) block.shownParts = [];
    return bytes;
  }

  get empty(): boolean {
    return this.#chars === 0 && !this.#textBytes && this.#opaqueBytes === 0 && this.#thinkingBlocks.size === 0;
  }

  written(): WrittenForEstimate {
    const signedThinking = [...this.#thinkingBlocks.values()]
      .filter((block) => block.signatureBytes > 0)
      .map((block) => ({
        visibleThinking: block.shownParts.join(''),
        visibleBytes: block.shownBytes,
        signatureBytes: block.signatureBytes,
      }));
    return {
      answerText: this.#answerParts.join(''),
      otherText: this.#otherParts.join(''),
      textBytes: this.#textBytes,
      opaqueBytes: this.#opaqueBytes,
      signedThinking,
    };
  }
}

/**
 * What a whole answer's model wrote, read from its JSON: a chat completion's reply (its text; its
 * reasoning, refusal and tool calls), else any other shape's text, thinking, refusals and tool calls
 * (a legacy completion's `choices[].text`, a native Messages or Responses answer), what of it has
 * no text (Messages' redacted thinking) and Messages' thinking signatures.
 */
export function writtenInAnswer(answer: unknown): OutputTally {
  const tally = new OutputTally();
  const reply = readChatCompletion(answer);
  if (reply === null) {
    for (const text of answerTexts(answer)) tally.answer(text);
    for (const text of answerOtherOutputTexts(answer)) tally.other(text);
    tally.opaque(answerOpaqueOutputBytes(answer));
    for (const [blockIndex, { visibleThinking, signatureBytes }] of answerSignedThinking(answer).entries())
      tally.signedThinking(blockIndex, visibleThinking, signatureBytes);
    return tally;
  }
  tally.answer(reply.text);
  // A relay's thinking blocks hold the same thinking as its text field, each with the signature that may hold more.
  if (reply.relayThinking === null) tally.other(reply.reasoning);
  else
    new RelayThinkingReader({
      onThinking: (blockIndex, text) => tally.thinking(blockIndex, text),
      onThinkingSignature: (blockIndex, bytes) => tally.thinkingSignature(blockIndex, bytes),
      onOpaqueOutput: (bytes) => tally.opaque(bytes),
      onOtherOutput: (text) => tally.other(text),
    }).read(reply.relayThinking);
  for (const text of [reply.refusal, ...reply.toolCalls.map((call) => call.name + call.arguments)]) tally.other(text);
  return tally;
}

/**
 * writtenInAnswer of a whole answer as relayed, which must not fail it: an answer its reading cannot
 * take apart (a tool input nested deeper than JSON.stringify recurses overflows the stack) counts as
 * its bytes at the byte rate, as a text past the tokenizer's limit does.
 */
export function writtenInWholeAnswer(answer: unknown, answerBytes: number): OutputTally {
  try {
    return writtenInAnswer(answer);
  } catch {
    return OutputTally.ofBytes(answerBytes);
  }
}
