import { Worker } from 'node:worker_threads';
import { copyInSlices } from '../core/copyInSlices.ts';
import { redactSecrets } from '../core/redact.ts';
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
 * which over-counts, the safe side for budgets.
 */
export class TokenEstimator {
  private readonly threadUrl: URL;
  private readonly onFailure: (reason: string) => void;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failuresInARow = 0;

  constructor(options: { threadUrl?: URL; onFailure?: (reason: string) => void } = {}) {
    this.threadUrl = options.threadUrl ?? TOKENIZER_THREAD_URL;
    this.onFailure = options.onFailure ?? ((reason) => console.error(`[airlock] token estimates: ${reason}`));
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
    const worker = this.ensureWorker();
    if (worker === null) return Promise.resolve(fallbackTokens);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, fallbackTokens });
      // Ref'd while an answer is awaited, so a caller's await cannot be cut short by the process exiting.
      worker.ref();
      worker.postMessage({ ...request, id } satisfies ToTokenizerThread, transfer);
    });
  }

  private ensureWorker(): Worker | null {
    if (this.worker !== null) return this.worker;
    if (this.failuresInARow >= MAX_TOKENIZER_FAILURES) return null;
    const worker = new Worker(this.threadUrl, { name: TOKENIZER_THREAD_NAME });
    worker.unref();
    worker.on('message', (message: FromTokenizerThread) => this.onAnswer(message));
    // Redacted: the thread reads request bodies, and a user may have pasted a key into one.
    worker.on('error', (error) => this.onFailure(`the tokenizer thread failed (${redactSecrets(error.message)}); byte counts stand in`));
    worker.once('exit', () => this.onExit(worker));
    this.worker = worker;
    return worker;
  }

  private onAnswer(message: FromTokenizerThread): void {
    this.failuresInARow = 0;
    this.pending.get(message.id)?.resolve(message.tokens);
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker?.unref();
  }

  /** What the dead thread had not answered gets the byte estimate; the next request starts a new thread. */
  private onExit(worker: Worker): void {
    if (worker !== this.worker) return;
    this.worker = null;
    this.failuresInARow += 1;
    for (const { resolve, fallbackTokens } of this.pending.values()) resolve(fallbackTokens);
    this.pending.clear();
    if (this.failuresInARow === MAX_TOKENIZER_FAILURES)
      this.onFailure('the tokenizer thread stopped several times in a row; estimates count bytes until Airlock restarts');
  }
}

/** One thread per process: the rank tables are loaded once however many proxies it runs. */
export const tokenEstimator = new TokenEstimator();
