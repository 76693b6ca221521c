import { Worker } from 'node:worker_threads';
import type { RequestLifecycleEvent } from '../events/lifecycle.ts';
import type { FromLogThread, LogThreadData, ToLogThread } from './logThreadMessages.ts';

/**
 * The thread's script next to this module: the source file when run from source, the bundled
 * `logThread.js` (a separate entry of the Electron build) when this module was bundled.
 */
const LOG_THREAD_URL = new URL(import.meta.url.endsWith('.ts') ? './logThread.ts' : './logThread.js', import.meta.url);

/** A thread that died is started again this many times in a row before the log gives up. */
const MAX_RESTARTS = 3;

export interface LogThreadOptions extends LogThreadData {
  /** How long events wait on this thread, so one message carries many. */
  postIntervalMs: number;
  /** Read at each post: keys may change while running. */
  knownSecrets: () => string[];
  onError: (error: unknown) => void;
  /** Bodies were turned off by a failed write (a full disk), or back on. */
  onBodiesState: (reason: string | null) => void;
  /** The thread's script; tests pass one that fails. */
  threadUrl?: URL;
}

/**
 * The main thread's side of the log thread: events are queued here and posted in batches; a flush
 * resolves once the thread has written everything posted before it.
 */
export class LogThreadClient {
  private readonly options: LogThreadOptions;
  private worker: Worker;
  private pending: RequestLifecycleEvent[] = [];
  private postTimer: NodeJS.Timeout | null = null;
  private nextFlushId = 1;
  private readonly flushWaiters = new Map<number, () => void>();
  private closing: Promise<void> | null = null;
  private restarts = 0;
  private stopped = false;

  constructor(options: LogThreadOptions) {
    this.options = options;
    this.worker = this.startWorker();
  }

  enqueue(event: RequestLifecycleEvent): void {
    if (this.stopped) return;
    this.pending.push(event);
    if (this.postTimer === null) {
      this.postTimer = setTimeout(() => this.postPending(), this.options.postIntervalMs);
      this.postTimer.unref();
    }
  }

  /** Resolves once everything queued so far is written (or the thread died trying). */
  flush(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.postPending();
    const id = this.nextFlushId++;
    return new Promise((resolve) => {
      this.flushWaiters.set(id, resolve);
      this.send({ type: 'flush', id });
    });
  }

  setBodiesDisabled(reason: string | null): void {
    this.send({ type: 'bodies', reason });
  }

  recountBacklog(): void {
    this.send({ type: 'recount' });
  }

  enableAutocheckpoint(): void {
    this.send({ type: 'autocheckpoint' });
  }

  close(): Promise<void> {
    this.closing ??= this.closeThread();
    return this.closing;
  }

  private async closeThread(): Promise<void> {
    await this.flush();
    if (this.stopped) return;
    this.stopped = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage({ type: 'close' } satisfies ToLogThread);
    await exited;
  }

  private postPending(): void {
    if (this.postTimer !== null) clearTimeout(this.postTimer);
    this.postTimer = null;
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    this.send({ type: 'events', events, secrets: this.options.knownSecrets() });
  }

  private send(message: ToLogThread): void {
    if (!this.stopped) this.worker.postMessage(message);
  }

  private startWorker(): Worker {
    const { dataDir, maxDbBytes, bodyCapBytes } = this.options;
    const workerData: LogThreadData = { dataDir, bodyCapBytes, ...(maxDbBytes === undefined ? {} : { maxDbBytes }) };
    const worker = new Worker(this.options.threadUrl ?? LOG_THREAD_URL, { workerData });
    worker.unref();
    worker.on('message', (message: FromLogThread) => this.onMessage(message));
    worker.on('error', (error) => this.options.onError(error));
    worker.once('exit', () => this.onExit(worker));
    return worker;
  }

  private onMessage(message: FromLogThread): void {
    if (message.type === 'flushed') {
      // A thread that answers is healthy: a later death starts the count of restarts again.
      this.restarts = 0;
      this.flushWaiters.get(message.id)?.();
      this.flushWaiters.delete(message.id);
    } else if (message.type === 'bodies') {
      this.options.onBodiesState(message.reason);
    } else {
      this.options.onError(message.error);
    }
  }

  /** A thread that died lost what it held; later requests are logged by a new one. */
  private onExit(worker: Worker): void {
    if (worker !== this.worker) return;
    for (const resolve of this.flushWaiters.values()) resolve();
    this.flushWaiters.clear();
    if (this.stopped) return;
    if (this.restarts >= MAX_RESTARTS) {
      this.stopped = true;
      this.options.onError(new Error('the request log thread stopped several times in a row; requests are no longer logged until Airlock restarts'));
      return;
    }
    this.restarts += 1;
    this.options.onError(new Error('the request log thread stopped; a new one logs the requests that follow'));
    this.worker = this.startWorker();
  }
}
