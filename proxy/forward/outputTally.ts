import { readChatCompletion } from '../protocols/chat/chatShapes.ts';
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

/**
 * Everything a model wrote, as a usage estimate counts it (accounting.ts) and the gateway bills it:
 * the answer's text; the rest it wrote (reasoning, a refusal, tool calls); and the bytes of what came
 * with no text to count. It is fed all of an answer as it passes, not the log's copy, which stops at
 * the capture limit. The texts are kept to be tokenized, each on its own (a thinking block and a text
 * block are counted the same whichever order a protocol gives them in), until together they pass
 * TOKENIZE_LIMIT_CHARS, where the tokenizer is not used: then only their bytes are counted on.
 */
export class OutputTally {
  #answerParts: string[] = [];
  #otherParts: string[] = [];
  #chars = 0;
  #textBytes: number | null = null;
  #opaqueBytes = 0;
  #signedThinking: SignedThinkingSize[] = [];

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

  /** A thinking block's signature, and its visible thinking, already given as other output. */
  signedThinking(visibleThinking: string, signatureBytes: number): void {
    const visibleBytes = Buffer.byteLength(visibleThinking);
    this.#signedThinking.push({ visibleThinking: this.#textBytes === null ? visibleThinking : '', visibleBytes, signatureBytes });
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

  /** The texts' bytes, from now on only measured: what was kept is measured once and let go. */
  #measuredTextBytes(): number {
    if (this.#textBytes !== null) return this.#textBytes;
    const bytes = [...this.#answerParts, ...this.#otherParts].reduce((sum, part) => sum + Buffer.byteLength(part), 0);
    this.#answerParts = [];
    this.#otherParts = [];
    for (const block of this.#signedThinking) block.visibleThinking = '';
    return bytes;
  }

  get empty(): boolean {
    return this.#chars === 0 && !this.#textBytes && this.#opaqueBytes === 0 && this.#signedThinking.length === 0;
  }

  written(): WrittenForEstimate {
    return {
      answerText: this.#answerParts.join(''),
      otherText: this.#otherParts.join(''),
      textBytes: this.#textBytes,
      opaqueBytes: this.#opaqueBytes,
      signedThinking: this.#signedThinking,
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
    for (const { visibleThinking, signatureBytes } of answerSignedThinking(answer)) tally.signedThinking(visibleThinking, signatureBytes);
    return tally;
  }
  tally.answer(reply.text);
  for (const text of [reply.reasoning, reply.refusal, ...reply.toolCalls.map((call) => call.name + call.arguments)]) tally.other(text);
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
