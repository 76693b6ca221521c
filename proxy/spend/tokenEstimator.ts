import { copyInSlices } from '../core/copyInSlices.ts';
import { IDLE_THREAD_STOP_MS, OnDemandThread } from '../core/onDemandThread.ts';
import { reportProcessProblem } from '../core/processProblems.ts';
import { threadScriptUrl } from '../core/threadScript.ts';
import { byteEstimateTokens } from './estimate.ts';
import type { FromTokenizerThread, TokenCountRequest, ToTokenizerThread } from './tokenizerMessages.ts';

/** The thread's script: `tokenizerThread.ts`, or the bundled `tokenizerThread.js` next to main.js. */
const TOKENIZER_THREAD_URL = threadScriptUrl(import.meta.url, 'tokenizerThread');
/** The OS thread's name (at most 15 characters on Linux). */
const TOKENIZER_THREAD_NAME = 'airlock-tokens';
/** A thread that dies this many times in a row without answering is not started again. */
export const MAX_TOKENIZER_FAILURES = 3;

interface Pending {
  resolve: (tokens: number) => void;
  fallbackTokens: number;
}

/**
 * Token estimates counted on a thread of their own (see tokenizerThread.ts), started at the first
 * estimate: with no budget cap set, most users never need one and never pay its memory (about 35 MB);
 * the first estimate waits about 0.3 s for the tokenizer to load, without holding up other requests.
 * An estimate never fails: if the thread cannot answer, it is the byte-count estimate instead,
 * which over-counts, the safe side for budgets. The thread stops after IDLE_THREAD_STOP_MS
 * without a question, so a count now and then does not hold its memory all day; a count after
 * that waits for the tokenizer to load again.
 */

export class TokenEstimator {
  private readonly thread: OnDemandThread<ToTokenizerThread, FromTokenizerThread, Pending>;

  constructor(options: { threadUrl?: URL; onFailure?: (reason: string) => void; stopWhenIdleMs?: number } = {}) {
    const onFailure = options.onFailure ?? ((reason) => reportProcessProblem('token_estimates_failed', `token estimates: ${reason}`));
    this.thread = new OnDemandThread({
      scriptUrl: options.threadUrl ?? TOKENIZER_THREAD_URL,
      threadName: TOKENIZER_THREAD_NAME,
      maxFailuresInARow: MAX_TOKENIZER_FAILURES,
      stopWhenIdleMs: options.stopWhenIdleMs ?? IDLE_THREAD_STOP_MS,
      onAnswer: (message, pending) => pending?.resolve(message.tokens),
      // What the dead thread had not answered gets the byte estimate; the next request starts a new thread.
      onUnanswered: ({ resolve, fallbackTokens }) => resolve(fallbackTokens),
      onError: (message) => onFailure(`the tokenizer thread failed (${message}); byte counts stand in`),
      onGaveUp: () => onFailure('the tokenizer thread stopped several times in a row; estimates count bytes until Airlock restarts'),
    });
  }

  /** Whether the tokenizer's thread is started: a count then waits milliseconds, not its load. */
  get running(): boolean {
    return this.thread.running;
  }

  /** Input tokens of a JSON request body (Chat Completions or Anthropic Messages), given as its chunks. */
  async chatInputTokens(chunks: readonly Buffer[], byteLength: number): Promise<number> {
    // One exact-size copy, transferred: the chunks stay with the request, which is still sending them.
    const json = await copyInSlices(chunks, byteLength);
    return this.ask({ kind: 'chat', json }, byteEstimateTokens(byteLength), [json.buffer]);
  }

  textTokens(text: string): Promise<number> {
    if (text.length === 0) return Promise.resolve(0);
    return this.ask({ kind: 'text', text }, byteEstimateTokens(Buffer.byteLength(text)), []);
  }

  private ask(request: TokenCountRequest, fallbackTokens: number, transfer: ArrayBuffer[]): Promise<number> {
    if (!this.thread.available) return Promise.resolve(fallbackTokens);
    return new Promise((resolve) => {
      this.thread.ask({ resolve, fallbackTokens }, (id) => ({ ...request, id }), transfer);
    });
  }
}

/** One thread per process: the rank tables are loaded once however many proxies it runs. */
export const tokenEstimator = new TokenEstimator();
