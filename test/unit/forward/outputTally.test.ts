import { describe, expect, it } from 'vitest';
import { OutputTally } from '../../../proxy/forward/outputTally.ts';
import { WrittenOutput } from '../../../proxy/forward/writtenOutput.ts';
import { TOKENIZE_LIMIT_CHARS } from '../../../proxy/spend/estimate.ts';

/** Pieces of a long stream: 'é' is 2 UTF-8 bytes, so a count of characters taken for bytes would show. */
const PIECE = 'Step é: weigh the option again. ';
const piecesOf = (totalChars: number): string[] => Array.from({ length: Math.ceil(totalChars / PIECE.length) }, () => PIECE);
const bytesOf = (pieces: string[]): number => pieces.reduce((bytes, piece) => bytes + Buffer.byteLength(piece), 0);

/**
 * A usage estimate tokenizes what a model wrote only up to TOKENIZE_LIMIT_CHARS; past it only bytes count.
 * So the tally never holds more text than that, a single thinking block's included: past it, it counts
 * each piece's bytes and lets the text go.
 */
describe('OutputTally: the text it holds is capped at the tokenizer limit', () => {
  it('lets a 2M-character thinking block go, counting its bytes, with its signature still weighed', () => {
    const tally = new OutputTally();
    const pieces = piecesOf(2_000_000);
    for (const piece of pieces) tally.thinking(0, piece);
    tally.thinkingSignature(0, 9000);
    const written = tally.written();
    expect(written.otherText).toBe('');
    expect(written.textBytes).toBe(bytesOf(pieces));
    expect(written.signedThinking).toEqual([{ visibleThinking: '', visibleBytes: bytesOf(pieces), signatureBytes: 9000 }]);
  });

  it('keeps a thinking block under the limit, to weigh it against its signature', () => {
    const tally = new OutputTally();
    for (const piece of ['Compare ', 'the two.']) tally.thinking(3, piece);
    tally.thinkingSignature(3, 600);
    expect(tally.written().signedThinking).toEqual([{ visibleThinking: 'Compare the two.', visibleBytes: 16, signatureBytes: 600 }]);
  });
});

/**
 * A stream's answer text is kept for the log up to its capture limit (WrittenOutput) and for the estimate up
 * to the tokenizer's: one array of its pieces serves both, each reading what it needs of it.
 */
describe("WrittenOutput: the answer's pieces are held once", () => {
  it('holds no piece past both limits, and each reads its own part', () => {
    const logLimitChars = 16 * 1024;
    const written = new WrittenOutput(logLimitChars);
    const pieces = piecesOf(TOKENIZE_LIMIT_CHARS * 2);
    for (const piece of pieces) written.text(piece);
    expect(written.heldTextPieces).toBe(Math.ceil(logLimitChars / PIECE.length));
    expect(written.answerText()).toBe(pieces.slice(0, Math.ceil(logLimitChars / PIECE.length)).join(''));
    expect(written.tally.written()).toMatchObject({ answerText: '', textBytes: bytesOf(pieces) });
  });

  it('gives the estimate all of an answer the log cuts, while it is under the tokenizer limit, and held once', () => {
    const logLimitChars = 16 * 1024;
    const written = new WrittenOutput(logLimitChars);
    const pieces = piecesOf(logLimitChars * 3);
    for (const piece of pieces) written.text(piece);
    expect(written.heldTextPieces).toBe(pieces.length);
    expect(written.answerText()).toBe(pieces.slice(0, Math.ceil(logLimitChars / PIECE.length)).join(''));
    expect(written.tally.written()).toMatchObject({ answerText: pieces.join(''), textBytes: null });
  });
});
