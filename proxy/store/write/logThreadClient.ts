import type { Transferable, Worker } from 'node:worker_threads';
import { threadScriptUrl } from '../../core/threadScript.ts';
import type { CapturedBodies, RequestLifecycleEvent } from '../../contracts/lifecycle.ts';
import type { EndedRowSummary } from '../../contracts/log.ts';
import { bodyBytesOf } from './eventSlice.ts';
import { isSupersededByEnd } from './rowDraft.ts';
import { serializeEvents, type FromLogThread, type LogThreadData, type ToLogThread } from './logThreadMessages.ts';
import type { RetentionPolicy, RetentionResult } from './retention.ts';
import type { UnwrittenState } from './unwrittenSpend.ts';
import { startBackgroundWorker } from '../threadPriority.ts';

/** The thread's script: `logThread.ts`, or the bundled `logThread.js` next to main.js. */
const LOG_THREAD_URL = threadScriptUrl(import.meta.url, 'logThread');

/** A thread that died is started again this many times in a row before the log gives up. */
const MAX_RESTARTS = 3;
/** The OS thread's name (at most 15 characters on Linux), by which its priority is lowered. */
const LOG_THREAD_NAME = 'airlock-log';
/**
 * The thread runs at the lowest priority, so under a load that takes every core it falls behind
 * instead of slowing forwarding. Past this many body bytes posted and not yet written, bodies are
 * skipped (rows are not) until it has caught up to half of it: memory stays bounded.
 */
export const MAX_UNWRITTEN_BODY_BYTES = 64 * 1024 * 1024;
export const BEHIND_REASON = 'The log fell behind under heavy load: request bodies are skipped until it catches up.';

const SKIPPED_BODIES: CapturedBodies = {
  requestHeaders: {},
  responseHeaders: {},
  requestBody: null,
  requestBodyTruncated: false,
  responseBody: null,
  responseBodyTruncated: false,
  streamText: null,
};

/**
 * Drops `headers`, `usage` and `progress` events that the same request's `end`, in the same batch, makes
 * redundant (it carries their fields' final values): each event not posted is one less to copy.
 */
function withoutSupersededEvents(events: RequestLifecycleEvent[]): RequestLifecycleEvent[] {
  const ends = new Map<string, Extract<RequestLifecycleEvent, { type: 'end' }>>();
  for (const event of events) if (event.type === 'end') ends.set(event.requestId, event);
  if (ends.size === 0) return events;
  return events.filter((event) => {
    if (event.type !== 'headers' && event.type !== 'usage' && event.type !== 'progress') return true;
    const end = ends.get(event.requestId);
    return end === undefined || !isSupersededByEnd(event, end);
  });
}

function withoutBodies(event: RequestLifecycleEvent): RequestLifecycleEvent {
  return event.type === 'end' ? { ...event, bodies: SKIPPED_BODIES } : event;
}

export interface LogThreadOptions extends LogThreadData {
  /** How long events wait on this thread, so one message carries many. */
  postIntervalMs: number;
  /** Read at each post: keys may change while running. */
  knownSecrets: () => string[];
  onError: (error: unknown) => void;
  /** Bodies were turned off by a failed write (a full disk), or back on. */
  onBodiesState: (reason: string | null) => void;
  /** What the database could not take changed. */
  onUnwritten?: (state: UnwrittenState) => void;
  /** Requests ended and their summaries were written (or kept for a full disk). */
  onSummaries?: (summaries: EndedRowSummary[]) => void;
  /** The thread's script; tests pass stand-ins that fail or fall behind. */
  threadUrl?: URL;
  /** MAX_UNWRITTEN_BODY_BYTES unless given. */
  maxUnwrittenBodyBytes?: number;
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
  private nextReplyId = 1;
  /** Flushes and retention runs waiting for the thread's answer, by id; a thread that died answers null. */
  private readonly replyWaiters = new Map<number, (result: RetentionResult | null) => void>();
  private closing: Promise<void> | null = null;
  private restarts = 0;
  private stopped = false;
  private unwrittenBodyBytes = 0;
  private skippingBodies = false;

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
  async flush(): Promise<void> {
    if (this.stopped) return;
    this.postPending();
    await this.request((id) => ({ type: 'flush', id }));
  }

  /**
   * Applies the retention policy on the thread, after what is queued so far: its deletes and
   * compaction take seconds on a large log, which the forwarding event loop must not wait for.
   * Resolves with null if it failed (reported through onError) or the thread is gone.
   */
  async runRetention(policy: RetentionPolicy, nowMs: number): Promise<RetentionResult | null> {
    if (this.stopped) return null;
    this.postPending();
    return this.request((id) => ({ type: 'retain', id, policy, nowMs }));
  }

  /** Sends a message that the thread answers with its id, and waits for that answer. */
  private request(message: (id: number) => ToLogThread): Promise<RetentionResult | null> {
    const id = this.nextReplyId++;
    // The thread is unref'd so it never keeps the process alive; an answer awaited last must.
    this.worker.ref();
    return new Promise((resolve) => {
      this.replyWaiters.set(id, resolve);
      this.send(message(id));
    });
  }

  /** Why bodies are being skipped now (the thread is behind), or null. */
  get behindReason(): string | null {
    return this.skippingBodies ? BEHIND_REASON : null;
  }

  setBodiesDisabled(reason: string | null): void {
    this.send({ type: 'bodies', reason });
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
    this.worker.ref();
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage({ type: 'close' } satisfies ToLogThread);
    await exited;
  }

  private postPending(): void {
    if (this.postTimer !== null) clearTimeout(this.postTimer);
    this.postTimer = null;
    if (this.pending.length === 0) return;
    const events = withoutSupersededEvents(this.pending);
    this.pending = [];
    const maxUnwrittenBytes = this.options.maxUnwrittenBodyBytes ?? MAX_UNWRITTEN_BODY_BYTES;
    if (this.unwrittenBodyBytes > maxUnwrittenBytes) this.skippingBodies = true;
    else if (this.unwrittenBodyBytes <= maxUnwrittenBytes / 2) this.skippingBodies = false;
    const secrets = this.options.knownSecrets();
    if (this.skippingBodies) {
      this.sendEvents(events.map(withoutBodies), secrets, false, 0);
      return;
    }
    const bodyBytes = events.reduce((sum, event) => sum + bodyBytesOf(event), 0);
    this.unwrittenBodyBytes += bodyBytes;
    this.sendEvents(events, secrets, true, bodyBytes);
  }

  private sendEvents(events: RequestLifecycleEvent[], secrets: string[], withBodies: boolean, bodyBytes: number): void {
    const serialized = serializeEvents(events);
    this.send({ type: 'events', events: serialized, secrets, withBodies, bodyBytes }, [serialized.buffer]);
  }

  private send(message: ToLogThread, transfer: Transferable[] = []): void {
    if (!this.stopped) this.worker.postMessage(message, transfer);
  }

  private startWorker(): Worker {
    const { dataDir, maxDbBytes, bodyCapBytes } = this.options;
    const workerData: LogThreadData = { dataDir, bodyCapBytes, ...(maxDbBytes === undefined ? {} : { maxDbBytes }) };
    const worker = startBackgroundWorker(this.options.threadUrl ?? LOG_THREAD_URL, { workerData, name: LOG_THREAD_NAME });
    worker.on('message', (message: FromLogThread) => this.onMessage(message));
    worker.on('error', (error) => this.options.onError(error));
    worker.once('exit', () => this.onExit(worker));
    return worker;
  }

  private onMessage(message: FromLogThread): void {
    if (message.type === 'ingested') {
      this.unwrittenBodyBytes -= message.bodyBytes;
      if (message.summaries.length > 0) this.options.onSummaries?.(message.summaries);
    } else if (message.type === 'flushed' || message.type === 'retained') {
      // A thread that answers is healthy: a later death starts the count of restarts again.
      this.restarts = 0;
      this.replyWaiters.get(message.id)?.(message.type === 'retained' ? message.result : null);
      this.replyWaiters.delete(message.id);
      if (this.replyWaiters.size === 0 && !this.stopped) this.worker.unref();
    } else if (message.type === 'bodies') {
      this.options.onBodiesState(message.reason);
    } else if (message.type === 'unwritten') {
      this.options.onUnwritten?.(message.state);
    } else {
      this.options.onError(message.error);
    }
  }

  /** A thread that died lost what it held; later requests are logged by a new one. */
  private onExit(worker: Worker): void {
    if (worker !== this.worker) return;
    for (const resolve of this.replyWaiters.values()) resolve(null);
    this.replyWaiters.clear();
    this.unwrittenBodyBytes = 0;
    if (this.stopped) return;
    if (this.restarts >= MAX_RESTARTS) {
      this.stopped = true;
      this.options.onError(
        new Error('the request log thread stopped several times in a row; requests are no longer logged until Airlock restarts'),
      );
      return;
    }
    this.restarts += 1;
    this.options.onError(new Error('the request log thread stopped; a new one logs the requests that follow'));
    this.worker = this.startWorker();
  }
}
