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
/** The learned rate is lowered by this share: a turn may add denser text than the conversation held. */
const RATE_MARGIN = 0.1;
/**
 * The rate holds for a body up to this many times the session's largest counted one: what it added since
 * is then at most a fifth of it, which the margin covers unless that text runs under 0.64 of the counted
 * rate (code's 4 bytes a token against 2.6; a JSON file in a tool result runs about 3). Past it, what
 * was counted says too little of the body.
 */
const MAX_GROWTH = 1.25;

interface CountedSession {
  /** The fewest bytes per token the tokenizer counted in its turns. */
  bytesPerToken: number;
  /** The bytes of its largest counted turn: its conversation's latest, not a side request's (a title, a summary). */
  countedBytes: number;
}

/**
 * Input tokens by a chat body's bytes at the rate the tokenizer counted the same conversation's earlier
 * turns (the densest of them, less a margin), for a translated client told a count without the
 * tokenizer: bytes / 3 told it 1.3 to 1.5 times its tokens, and its agent compacted that much early.
 * Every turn resends the conversation so far, so its rate holds for the next few; another conversation's
 * does not (a JSON one runs 3.1 bytes a token, prose 4.8), so one with none counted, or none named by its
 * agent (agentSessionIdOf), or grown well past what was counted, is bytes / 3.
 */
export class CountedByteRate {
  /** Per agent session, the latest counted last. */
  readonly #counted = new Map<string, CountedSession>();

  /** A body of `byteLength` bytes of the session `sessionId` that the tokenizer counted as `tokens`. */
  record(sessionId: string | null, byteLength: number, tokens: number): void {
    if (sessionId === null || byteLength < MIN_LEARNED_BODY_BYTES || tokens <= 0) return;
    const bytesPerToken = byteLength / tokens;
    if (bytesPerToken > MAX_TEXT_BYTES_PER_TOKEN) return;
    const earlier = this.#counted.get(sessionId) ?? { bytesPerToken: Number.POSITIVE_INFINITY, countedBytes: 0 };
    this.#counted.delete(sessionId);
    this.#counted.set(sessionId, {
      bytesPerToken: Math.min(earlier.bytesPerToken, bytesPerToken),
      countedBytes: Math.max(earlier.countedBytes, byteLength),
    });
    if (this.#counted.size > KEPT_SESSIONS) {
      const [oldest] = this.#counted.keys();
      if (oldest !== undefined) this.#counted.delete(oldest);
    }
  }

  inputTokens(sessionId: string | null, byteLength: number): number {
    const counted = sessionId === null ? undefined : this.#counted.get(sessionId);
    const holds = counted !== undefined && byteLength >= MIN_LEARNED_BODY_BYTES && byteLength <= counted.countedBytes * MAX_GROWTH;
    if (!holds) return byteEstimateTokens(byteLength);
    return Math.ceil(byteLength / (counted.bytesPerToken * (1 - RATE_MARGIN)));
  }
}
