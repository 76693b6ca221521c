import { byteEstimateTokens } from './estimate.ts';

/** Conversations whose rate is kept: the latest counted; an agent runs a few at a time. */
const KEPT_SESSIONS = 256;
/** A smaller body's rate is its framing's (model name, roles, separators), not its text's: neither learned from nor counted at it. */
const MIN_LEARNED_BODY_BYTES = 4 * 1024;
/**
 * Past this a body held more than text (an image's base64, which the tokenizer counts as a flat
 * estimate): text and code in a chat body run 3 to 5 bytes a token in o200k.
 */
const MAX_TEXT_BYTES_PER_TOKEN = 6;
/** The learned rate is lowered by this share: the same conversation's bytes, resent, may be framed a little denser. */
const RATE_MARGIN = 0.1;
/**
 * A body smaller than this share of the session's last counted one is another conversation: the
 * same one compacted, or a subagent's, which Claude Code sends under its parent's session id
 * (anthropics/claude-code#7881). Its text was never counted.
 */
const MIN_SHARE_OF_LAST = 0.8;

interface CountedSession {
  /** The fewest bytes per token the tokenizer counted in its turns. */
  bytesPerToken: number;
  /** The bytes of its last counted turn. */
  lastCountedBytes: number;
}

/**
 * Input tokens by a chat body's bytes, for a translated client told a count without the tokenizer:
 * bytes / 3 told it 1.3 to 1.5 times its tokens, and its agent compacted that much early. Every turn
 * resends the conversation so far, so the part of it the tokenizer counted last time goes at the
 * session's densest counted rate (less a margin), and only what the turn added, which may be
 * anything (a base64 blob, a JSON dump), at bytes / 3 as before. Another session's rate is never
 * used (a JSON conversation runs 3.1 bytes a token, prose 4.8); a body with no session, none
 * counted, or well under the last counted one (another conversation) is bytes / 3.
 */
export class CountedByteRate {
  /** Per agent session, the latest counted last. */
  readonly #counted = new Map<string, CountedSession>();

  /** A body of `byteLength` bytes of the session `sessionId` that the tokenizer counted as `tokens`. */
  record(sessionId: string | null, byteLength: number, tokens: number): void {
    if (sessionId === null || byteLength < MIN_LEARNED_BODY_BYTES || tokens <= 0) return;
    const bytesPerToken = byteLength / tokens;
    if (bytesPerToken > MAX_TEXT_BYTES_PER_TOKEN) return;
    const earlierRate = this.#counted.get(sessionId)?.bytesPerToken ?? Number.POSITIVE_INFINITY;
    this.#counted.delete(sessionId);
    this.#counted.set(sessionId, { bytesPerToken: Math.min(earlierRate, bytesPerToken), lastCountedBytes: byteLength });
    if (this.#counted.size > KEPT_SESSIONS) {
      const [oldest] = this.#counted.keys();
      if (oldest !== undefined) this.#counted.delete(oldest);
    }
  }

  inputTokens(sessionId: string | null, byteLength: number): number {
    const counted = sessionId === null ? undefined : this.#counted.get(sessionId);
    if (counted === undefined || byteLength < MIN_LEARNED_BODY_BYTES || byteLength < counted.lastCountedBytes * MIN_SHARE_OF_LAST) {
      return byteEstimateTokens(byteLength);
    }
    const countedPartBytes = Math.min(byteLength, counted.lastCountedBytes);
    const addedBytes = byteLength - countedPartBytes;
    return Math.ceil(countedPartBytes / (counted.bytesPerToken * (1 - RATE_MARGIN))) + byteEstimateTokens(addedBytes);
  }
}
