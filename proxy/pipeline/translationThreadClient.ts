import { Worker } from 'node:worker_threads';
import { copyInSlices } from '../core/copyInSlices.ts';
import { redactSecrets } from '../core/redact.ts';
import { threadScriptUrl } from '../core/threadScript.ts';
import type { TranslatedBody, TranslatedProtocol } from './translationJob.ts';
import type { FromTranslationThread, ToTranslationThread } from './translationThreadMessages.ts';

/** The thread's script: `translationThread.ts`, or the bundled `translationThread.js` next to main.js. */
const TRANSLATION_THREAD_URL = threadScriptUrl(import.meta.url, 'translationThread');
/** The OS thread's name (at most 15 characters on Linux). */
const TRANSLATION_THREAD_NAME = 'airlock-transl';
/**
 * After a job this large, the thread is stopped once it has nothing left to do: V8 keeps the heap
 * a large parse grew (30 MB of small keys left it 400 MB larger for good), and a stopped thread
 * gives all of it back. The next heavy body starts a new one, which takes about 0.3 s.
 */
export const RETIRE_AFTER_JOB_BYTES = 8 * 1024 * 1024;
/** A thread that dies this many times in a row without answering is not started again. */
export const MAX_TRANSLATION_THREAD_FAILURES = 3;
interface Pending {
  resolve: (answer: TranslatedBody) => void;
  reject: (error: Error) => void;
}

/** Why a heavy body could not be translated: its request is refused with a 503, nothing sent. */
export class TranslationUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranslationUnavailableError';
  }
}

/**
 * Translates heavy Messages and Responses bodies on a thread of its own (translationThread.ts),
 * started at the first one: light bodies are translated on the forwarding loop and most users
 * never start it. A job the thread was working on when it died fails (its request is refused and
 * nothing is sent). After repeated deaths heavy bodies are refused until Airlock restarts: one
 * translated on the forwarding loop would stall every other request while it runs.
 */
export class TranslationThread {
  private readonly threadUrl: URL;
  private readonly onFailure: (reason: string) => void;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failuresInARow = 0;
  /** Set by a job of RETIRE_AFTER_JOB_BYTES or more: the thread stops when it is idle. */
  private retireWhenIdle = false;

  constructor(options: { threadUrl?: URL; onFailure?: (reason: string) => void } = {}) {
    this.threadUrl = options.threadUrl ?? TRANSLATION_THREAD_URL;
    this.onFailure = options.onFailure ?? ((reason) => console.error(`[airlock] translation: ${reason}`));
  }

  /** Whether a thread is started (and not retired or dead). */
  get threadRunning(): boolean {
    return this.worker !== null;
  }

  async translate(
    protocol: TranslatedProtocol,
    chunks: readonly Buffer[],
    byteLength: number,
    upstreamModel: string,
  ): Promise<TranslatedBody> {
    const json = await copyInSlices(chunks, byteLength);
    const worker = this.ensureWorker();
    if (worker === null) {
      throw new TranslationUnavailableError(
        `the translation thread stopped ${MAX_TRANSLATION_THREAD_FAILURES} times in a row, so large bodies are not translated until Airlock restarts`,
      );
    }
    const id = this.nextId++;
    if (byteLength >= RETIRE_AFTER_JOB_BYTES) this.retireWhenIdle = true;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Ref'd while an answer is awaited, so a caller's await cannot be cut short by the process exiting.
      worker.ref();
      worker.postMessage({ id, protocol, json, upstreamModel } satisfies ToTranslationThread, [json.buffer]);
    });
  }

  private ensureWorker(): Worker | null {
    if (this.worker !== null) return this.worker;
    if (this.failuresInARow >= MAX_TRANSLATION_THREAD_FAILURES) return null;
    const worker = new Worker(this.threadUrl, { name: TRANSLATION_THREAD_NAME });
    worker.unref();
    worker.on('message', (message: FromTranslationThread) => this.onAnswer(message));
    // Redacted: the thread reads request bodies, and a user may have pasted a key into one.
    worker.on('error', (error) => this.onFailure(`the translation thread failed (${redactSecrets(error.message)})`));
    worker.once('exit', () => this.onExit(worker));
    this.worker = worker;
    return worker;
  }

  private onAnswer(message: FromTranslationThread): void {
    this.failuresInARow = 0;
    const pending = this.pending.get(message.id);
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.idle();
    if (pending === undefined) return;
    if (!message.ok) {
      pending.resolve({ ok: false, message: message.message });
      return;
    }
    // Moved from the thread as a plain Uint8Array: a Buffer view of the same memory, no copy.
    const bytes = message.chatJson;
    pending.resolve({
      ok: true,
      chatJson: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      stream: message.stream,
      notes: message.notes,
    });
  }

  private idle(): void {
    const worker = this.worker;
    if (worker === null) return;
    worker.unref();
    if (!this.retireWhenIdle) return;
    // Forgotten first, so its exit is not taken for a failure.
    this.worker = null;
    this.retireWhenIdle = false;
    void worker.terminate();
  }

  private onExit(worker: Worker): void {
    if (worker !== this.worker) return;
    this.worker = null;
    this.failuresInARow += 1;
    this.rejectPending('the translation thread stopped before it answered');
    if (this.failuresInARow === MAX_TRANSLATION_THREAD_FAILURES) {
      this.onFailure('the translation thread stopped several times in a row; large bodies are refused until Airlock restarts');
    }
  }

  private rejectPending(message: string): void {
    for (const { reject } of this.pending.values()) reject(new TranslationUnavailableError(message));
    this.pending.clear();
  }

  /** Stops the thread (the proxy is stopping); a later heavy body starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === null) return;
    // Forgotten first, so its exit is not taken for a failure.
    this.worker = null;
    this.retireWhenIdle = false;
    this.rejectPending('Airlock stopped before the body was translated');
    await worker.terminate();
  }
}

/** One thread per process, shared by every proxy it runs. */
export const translationThread = new TranslationThread();
