import { isOutOfDescriptors } from './outOfDescriptors.ts';
import { Worker } from 'node:worker_threads';
import { trimWhenIdle } from './memoryReclaimer.ts';
import { redactSecrets } from './redact.ts';

interface OnDemandThreadOptions<FromThread, Waiter> {
  scriptUrl: URL;
  /** The OS thread's name (at most 15 characters on Linux). */
  threadName: string;
  /** What each thread started is given as its `workerData`, read as it starts. */
  workerData?: () => unknown;
  /** After this many deaths in a row without an answer, the thread is not started again (out of descriptors is no death). */
  maxFailuresInARow: number;
  /** An answer from the thread, with the waiter it was for (undefined if none is waiting for it). */
  onAnswer: (answer: FromThread, waiter: Waiter | undefined) => void;
  /** A waiter left without an answer: its thread died, or was stopped. */
  onUnanswered: (waiter: Waiter, cause: 'died' | 'stopped') => void;
  /** The thread raised an error; its message is already redacted. */
  onError: (redactedMessage: string) => void;
  /** The thread died the `maxFailuresInARow`-th time in a row: it is not started again. */
  onGaveUp: () => void;
  /** Every question sent has its answer (the thread is unref'd by then). */
  onIdle?: () => void;
  /**
   * Stops the thread once it has had no question for this long, so what its heap holds goes back
   * to the system; the next question starts a new one. Kept for good when absent.
   */
  stopWhenIdleMs?: number;
  /**
   * Called once a stopped thread has ended. Its heap and isolate go back to glibc's arenas as it
   * ends, minutes after the reclaimers' trims, and stayed resident (4 MB after the translation
   * thread's idle stop). Default: the forwarding thread trims at its next idle check (a stop may
   * come under load, when a trim here would hold the allocator's locks forwarding needs); null: none.
   */
  trimAfterStop?: (() => unknown) | null;
}

/**
 * How long a background thread that holds a large heap (the tokenizer, the translation thread) is
 * kept without a question: long enough that an agent's turns minutes apart keep it (a new one
 * costs its next question 120-170 ms), short enough that a count now and then does not hold its
 * memory all day.
 */
export const IDLE_THREAD_STOP_MS = 5 * 60_000;

/**
 * A worker thread started at the first question and kept while it answers: each question has an
 * id and a waiter until its answer comes back. A thread that dies fails everything it had not
 * answered, and the next question starts a new one, until it has died `maxFailuresInARow` times in
 * a row. What a waiter is, and what failing it means, belongs to the owner.
 */
export class OnDemandThread<ToThread, FromThread extends { id: number }, Waiter> {
  private readonly options: OnDemandThreadOptions<FromThread, Waiter>;
  private worker: Worker | null = null;
  private readonly waiters = new Map<number, Waiter>();
  private nextId = 1;
  private failuresInARow = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly trimAfterStop: (() => unknown) | null;

  constructor(options: OnDemandThreadOptions<FromThread, Waiter>) {
    this.options = options;
    this.trimAfterStop = options.trimAfterStop === undefined ? trimWhenIdle : options.trimAfterStop;
  }

  /** Whether a thread is started (and not stopped or dead). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Whether a question can be sent: false once the thread has died too many times in a row. */
  get available(): boolean {
    return this.worker !== null || this.failuresInARow < this.options.maxFailuresInARow;
  }

  /** Sends a question (built with its id), starting the thread if needed; only when `available`. */
  ask(waiter: Waiter, question: (id: number) => ToThread, transfer: ArrayBuffer[]): void {
    const worker = this.ensureWorker();
    this.clearIdleTimer();
    const id = this.nextId++;
    this.waiters.set(id, waiter);
    // Ref'd while an answer is awaited, so a caller's await cannot be cut short by the process exiting.
    worker.ref();
    worker.postMessage(question(id), transfer);
  }

  /** Stops the thread without counting it as a failure; the next question starts a new one. */
  async stop(): Promise<void> {
    this.clearIdleTimer();
    const worker = this.worker;
    if (worker === null) return;
    // Forgotten first, so its exit is not taken for a failure.
    this.worker = null;
    this.failWaiters('stopped');
    await worker.terminate();
    this.trimAfterStop?.();
  }

  private ensureWorker(): Worker {
    if (this.worker !== null) return this.worker;
    if (!this.available) throw new Error(`the ${this.options.threadName} thread is not started again`);
    const worker = new Worker(this.options.scriptUrl, { name: this.options.threadName, workerData: this.options.workerData?.() });
    worker.unref();
    worker.on('message', (answer: FromThread) => this.onMessage(answer));
    let outOfDescriptors = false;
    worker.on('error', (error) => {
      outOfDescriptors ||= isOutOfDescriptors(error);
      // Redacted: the threads read request bodies, and a user may have pasted a key into one.
      this.options.onError(redactSecrets(error.message));
    });
    worker.once('exit', () => this.onExit(worker, outOfDescriptors));
    this.worker = worker;
    return worker;
  }

  private onMessage(answer: FromThread): void {
    this.failuresInARow = 0;
    const waiter = this.waiters.get(answer.id);
    this.waiters.delete(answer.id);
    if (this.waiters.size === 0 && this.worker !== null) {
      this.worker.unref();
      this.startIdleTimer();
      this.options.onIdle?.();
    }
    this.options.onAnswer(answer, waiter);
  }

  private startIdleTimer(): void {
    const idleMs = this.options.stopWhenIdleMs;
    if (idleMs === undefined) return;
    this.clearIdleTimer();
    this.idleTimer = setTimeout(() => void this.stop(), idleMs);
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private onExit(worker: Worker, outOfDescriptors: boolean): void {
    if (worker !== this.worker) return;
    this.clearIdleTimer();
    this.worker = null;
    // Out of descriptors is the process's state, which passes: three questions while they ran short
    // made the translation thread refuse every heavy body until a restart, long after they were free
    // (probe L, 2026-11-30, a child under `prlimit --nofile=80`). Those questions still fail.
    if (!outOfDescriptors) this.failuresInARow += 1;
    this.failWaiters('died');
    if (this.failuresInARow === this.options.maxFailuresInARow) this.options.onGaveUp();
  }

  private failWaiters(cause: 'died' | 'stopped'): void {
    for (const waiter of this.waiters.values()) this.options.onUnanswered(waiter, cause);
    this.waiters.clear();
  }
}
