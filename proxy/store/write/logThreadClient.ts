import { isOutOfDescriptors } from '../../core/outOfDescriptors.ts';
import type { Transferable, Worker } from 'node:worker_threads';
import { threadScriptUrl } from '../../core/threadScript.ts';
import type { CapturedBodies, RequestLifecycleEvent } from '../../contracts/lifecycle.ts';
import type { EndedRowSummary } from '../../contracts/log.ts';
import { bodyBytesOf } from './eventSlice.ts';
import { behindReasonText, bodiesNotKeptNote, FoldedSpend, nextBacklogMode, splitForFolding, type BacklogMode } from './logBacklog.ts';
import { isSupersededByEnd } from './rowDraft.ts';
import { encodeEvents, EventBatchWriter } from './eventBatch.ts';
import type { FromLogThread, LogThreadData, ToLogThread } from './logThreadMessages.ts';
import type { RetentionPolicy, RetentionResult } from './retention.ts';
import type { SpendEntry, UnwrittenState } from './unwrittenSpend.ts';
import { startBackgroundWorker } from '../threadPriority.ts';
import { trimWhenIdle } from '../../core/memoryReclaimer.ts';

/** The thread's script: `logThread.ts`, or the bundled `logThread.js` next to main.js. */
const LOG_THREAD_URL = threadScriptUrl(import.meta.url, 'logThread');

/** The log gave up: no request is logged until Airlock restarts (not one failure among others). */
export class RequestLogStoppedError extends Error {}

/** A thread that died is started again this many times in a row before the log gives up. */
const MAX_RESTARTS = 3;
/**
 * How long after a thread died for want of file descriptors a new one starts. Such a death does not
 * count toward giving up (the process's state, which passes), and the wait keeps a restart from
 * looping while descriptors stay short: three at once, all failing, ended logging until a restart
 * (probe L, 2026-11-30, a child under `prlimit --nofile=80` met by a burst of connections).
 */
const RESTART_AFTER_OUT_OF_DESCRIPTORS_MS = 1_000;
/** The OS thread's name (at most 15 characters on Linux), by which its priority is lowered. */
const LOG_THREAD_NAME = 'airlock-log';
/**
 * Under a load that leaves the thread less CPU than its writes need (every core taken, a slow
 * disk, or the thread lowered by AIRLOCK_BACKGROUND_PRIORITY) it falls behind, and what it has
 * not taken in yet is held in memory: past half this
 * many bytes posted, bodies are no longer sent; past all of it, requests are folded into their
 * spend instead of rows (logBacklog.ts). The user's `logBacklogMiB` setting replaces it.
 */
export const DEFAULT_LOG_BACKLOG_BYTES = 64 * 1024 * 1024;

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

/**
 * The event without its bodies; an end that had any says so in its row. Its request headers stay
 * (small): Claude Code and Codex name their agent session there, so the row keeps its session.
 */
function withoutBodies(event: RequestLifecycleEvent, note: string): RequestLifecycleEvent {
  if (event.type !== 'end') return event;
  const hadBodies = bodyBytesOf(event) > 0;
  const bodies = { ...SKIPPED_BODIES, requestHeaders: event.bodies.requestHeaders };
  return { ...event, bodies, ...(hadBodies ? { logNotes: [...(event.logNotes ?? []), note] } : {}) };
}

export interface LogThreadOptions extends Omit<LogThreadData, 'ownCheckpoints'> {
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
  /** RESTART_AFTER_OUT_OF_DESCRIPTORS_MS unless given (tests lower it). */
  restartAfterOutOfDescriptorsMs?: number;
  /** The bytes posted and not yet taken in that the queue may hold (read at each post: a setting); DEFAULT_LOG_BACKLOG_BYTES unless given. */
  backlogBytes?: () => number;
  /** Told when the thread falls behind, catches up, or folded requests are written (behindReason changed). */
  onBehindChange?: () => void;
}

/**
 * The main thread's side of the log thread: events are queued here and posted in batches; a flush
 * resolves once the thread has written everything posted before it.
 */
export class LogThreadClient {
  private readonly options: LogThreadOptions;
  private worker: Worker;
  /** Events queued while folding or posting without bodies: those modes rework them at the post. */
  private pending: RequestLifecycleEvent[] = [];
  /** Events queued while posting whole: encoded at once, so their objects die young (eventBatch.ts). */
  private encoded: EventBatchWriter | null = null;
  /** How large the last encoded batch grew: the next one starts a little above (eventBatch.ts bounds it). */
  private lastBatchBytes = 0;
  private postTimer: NodeJS.Timeout | null = null;
  private nextReplyId = 1;
  /** Flushes and retention runs waiting for the thread's answer, by id; a thread that died answers null. */
  private readonly replyWaiters = new Map<number, (result: RetentionResult | null) => void>();
  private closing: Promise<void> | null = null;
  private restarts = 0;
  /** A thread that died for want of descriptors is started again when it fires; meanwhile `worker` is the dead one. */
  private restartTimer: NodeJS.Timeout | null = null;
  /** Such a death was said, and no thread answered since: while descriptors stay short one dies each second. */
  private starvedSaid = false;
  private stopped = false;
  /** Bytes of the batches posted to the thread and not yet taken in: what its queue holds. */
  private queuedBytes = 0;
  private mode: BacklogMode = 'post';
  /** While folding: events of requests that started here and have not ended. */
  private held: RequestLifecycleEvent[] = [];
  private readonly folded = new FoldedSpend();
  private reportedStep = 'post false';
  /** Until a checkpoint thread first runs, the log thread's connection checkpoints on its own. */
  private ownCheckpoints = true;

  constructor(options: LogThreadOptions) {
    this.options = options;
    this.worker = this.startWorker();
  }

  enqueue(event: RequestLifecycleEvent): void {
    if (this.stopped) return;
    // A batch is encoded as it is queued if, as it begins, it would be posted whole; otherwise it is
    // kept as objects, which the post reworks in the mode it chooses then.
    const begins = this.encoded === null && this.pending.length === 0 && this.held.length === 0;
    if (begins && nextBacklogMode(this.mode, this.queuedBytes, this.backlogBytes()) === 'post')
      this.encoded = new EventBatchWriter(this.lastBatchBytes * 1.25);
    if (this.encoded !== null) this.encoded.add(event);
    else this.pending.push(event);
    this.schedulePost();
  }

  private schedulePost(): void {
    if (this.postTimer !== null) return;
    this.postTimer = setTimeout(() => this.postPending(), this.options.postIntervalMs);
    this.postTimer.unref();
  }

  /** Resolves once everything queued so far is written (or the thread died trying): held requests are posted, not folded. */
  async flush(): Promise<void> {
    if (this.stopped) return;
    this.postPending(true);
    await this.request((id) => ({ type: 'flush', id }));
  }

  /**
   * Applies the retention policy on the thread, after what is queued so far: its deletes and
   * compaction take seconds on a large log, which the forwarding event loop must not wait for.
   * Resolves with null if it failed (reported through onError) or the thread is gone. Rows from
   * `keepRowsFromMs` on stay (retention.ts).
   */
  async runRetention(policy: RetentionPolicy, nowMs: number, keepRowsFromMs: number): Promise<RetentionResult | null> {
    if (this.stopped) return null;
    this.postPending();
    return this.request((id) => ({ type: 'retain', id, policy, nowMs, keepRowsFromMs }));
  }

  /** Sends a message that the thread answers with its id, and waits for that answer. */
  private request(message: (id: number) => ToLogThread): Promise<RetentionResult | null> {
    // No thread runs to answer: what was posted meanwhile was lost with it, as at any death.
    if (this.restartTimer !== null) return Promise.resolve(null);
    const id = this.nextReplyId++;
    // The thread is unref'd so it never keeps the process alive; an answer awaited last must.
    this.worker.ref();
    return new Promise((resolve) => {
      this.replyWaiters.set(id, resolve);
      this.send(message(id));
    });
  }

  /** What the log does not keep now because the thread is behind, in words, or null. */
  get behindReason(): string | null {
    return behindReasonText(this.mode, this.backlogBytes(), this.folded.requests);
  }

  /** Spend of folded requests the thread has not taken in yet: totals and budgets add it. */
  foldedSpend(): SpendEntry[] {
    return this.folded.entries();
  }

  private backlogBytes(): number {
    return this.options.backlogBytes?.() ?? DEFAULT_LOG_BACKLOG_BYTES;
  }

  setBodiesDisabled(reason: string | null): void {
    this.send({ type: 'bodies', reason });
  }

  /** Whether the thread's connection checkpoints on its own (no checkpoint thread runs); a replaced thread starts so too. */
  setOwnCheckpoints(on: boolean): void {
    this.ownCheckpoints = on;
    this.send({ type: 'autocheckpoint', on });
  }

  close(): Promise<void> {
    this.closing ??= this.closeThread();
    return this.closing;
  }

  private async closeThread(): Promise<void> {
    await this.flush();
    if (this.stopped) return;
    this.stopped = true;
    if (this.restartTimer !== null) {
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
      return;
    }
    this.worker.ref();
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage({ type: 'close' } satisfies ToLogThread);
    await exited;
  }

  /** `all`: a flush or close wants everything written, so nothing is held or folded. */
  private postPending(all = false): void {
    if (this.postTimer !== null) clearTimeout(this.postTimer);
    this.postTimer = null;
    this.mode = nextBacklogMode(this.mode, this.queuedBytes, this.backlogBytes());
    this.postEvents(all && this.mode === 'fold' ? 'withoutBodies' : this.mode);
    this.noteBehindStep();
  }

  /** Tells of a new step of behindReason; a higher count of folded requests is not news. */
  private noteBehindStep(): void {
    const step = `${this.mode} ${this.foldsRequests}`;
    if (step === this.reportedStep) return;
    this.reportedStep = step;
    this.options.onBehindChange?.();
  }

  /** Whether requests are being folded, or folded ones are not in the log yet: not every request has a row. */
  get foldsRequests(): boolean {
    return this.mode === 'fold' || this.folded.requests > 0;
  }

  private postEvents(mode: BacklogMode): void {
    this.postEncoded();
    if (this.pending.length === 0 && this.held.length === 0 && !this.folded.hasWaiting) return;
    const events = withoutSupersededEvents(this.held.length === 0 ? this.pending : [...this.held, ...this.pending]);
    this.pending = [];
    this.held = [];
    const secrets = this.options.knownSecrets();
    const note = bodiesNotKeptNote(this.backlogBytes());
    if (mode === 'fold') {
      const split = splitForFolding(events);
      this.held = split.hold;
      this.folded.add(split.folded);
      if (split.post.length > 0)
        this.sendEvents(
          split.post.map((event) => withoutBodies(event, note)),
          secrets,
          false,
        );
      if (this.held.length > 0 || this.folded.hasWaiting) this.schedulePost();
      return;
    }
    const entries = this.folded.takeWaiting();
    if (entries.length > 0) this.send({ type: 'fold', entries, secrets });
    if (events.length === 0) return;
    if (mode === 'withoutBodies')
      this.sendEvents(
        events.map((event) => withoutBodies(event, note)),
        secrets,
        false,
      );
    else this.sendEvents(events, secrets, true);
  }

  /**
   * Events encoded as they were queued go whole, whatever the mode is now: they were queued while the
   * thread kept up, so the queue holds at most the budget and this batch. They are older than any
   * event queued as an object since (the mode changes only at a post).
   */
  private postEncoded(): void {
    if (this.encoded === null) return;
    const batch = this.encoded.finish();
    this.encoded = null;
    this.lastBatchBytes = batch.byteLength;
    this.sendBatch(batch, this.options.knownSecrets(), true);
  }

  private sendEvents(events: RequestLifecycleEvent[], secrets: string[], withBodies: boolean): void {
    this.sendBatch(encodeEvents(events), secrets, withBodies);
  }

  private sendBatch(serialized: Uint8Array<ArrayBuffer>, secrets: string[], withBodies: boolean): void {
    // No thread runs to take it in and say so: counted, it stayed waiting work after the restart, and the log behind for good.
    if (this.restartTimer !== null) return;
    // The memory the thread holds until it is written: the whole buffer, its unused end included.
    const heldBytes = serialized.buffer.byteLength;
    this.queuedBytes += heldBytes;
    this.send({ type: 'events', events: serialized, secrets, withBodies, queuedBytes: heldBytes }, [serialized.buffer]);
  }

  private send(message: ToLogThread, transfer: Transferable[] = []): void {
    if (!this.stopped) this.worker.postMessage(message, transfer);
  }

  private startWorker(): Worker {
    const { dataDir, maxDbBytes, bodyCapBytes } = this.options;
    const workerData: LogThreadData = {
      dataDir,
      bodyCapBytes,
      ownCheckpoints: this.ownCheckpoints,
      ...(maxDbBytes === undefined ? {} : { maxDbBytes }),
    };
    const worker = startBackgroundWorker(this.options.threadUrl ?? LOG_THREAD_URL, { workerData, name: LOG_THREAD_NAME });
    worker.on('message', (message: FromLogThread) => this.onMessage(message));
    let starvedBy: string | null = null;
    worker.on('error', (error) => {
      // Said as it exits, once: each new cause on the board is a new notice (an OS notification).
      if (isOutOfDescriptors(error)) starvedBy ??= error.message;
      else this.options.onError(error);
    });
    worker.once('exit', () => this.onExit(worker, starvedBy));
    return worker;
  }

  private onMessage(message: FromLogThread): void {
    if (message.type === 'ingested') {
      this.queuedBytes -= message.queuedBytes;
      if (message.summaries.length > 0) this.options.onSummaries?.(message.summaries);
    } else if (message.type === 'folded') {
      this.folded.taken();
      this.noteBehindStep();
    } else if (message.type === 'flushed' || message.type === 'retained') {
      // A thread that answers is healthy: a later death starts the count of restarts again.
      this.restarts = 0;
      this.starvedSaid = false;
      this.replyWaiters.get(message.id)?.(message.type === 'retained' ? message.result : null);
      this.replyWaiters.delete(message.id);
      if (this.replyWaiters.size === 0 && !this.stopped) this.worker.unref();
    } else if (message.type === 'bodies') {
      this.options.onBodiesState(message.reason);
    } else if (message.type === 'unwritten') {
      this.options.onUnwritten?.(message.state);
    } else if (message.type === 'released') {
      trimWhenIdle();
    } else {
      this.options.onError(message.error);
    }
  }

  /** A thread that died lost what it held; later requests are logged by a new one. */
  private onExit(worker: Worker, starvedBy: string | null): void {
    if (worker !== this.worker) return;
    for (const resolve of this.replyWaiters.values()) resolve(null);
    this.replyWaiters.clear();
    this.queuedBytes = 0;
    this.folded.threadLost();
    if (this.stopped) return;
    if (starvedBy !== null) {
      const said = `the request log thread stopped for want of file descriptors (${starvedBy}); a new one starts each second until they free`;
      if (!this.starvedSaid) this.options.onError(new Error(said));
      this.starvedSaid = true;
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.stopped) this.worker = this.startWorker();
      }, this.options.restartAfterOutOfDescriptorsMs ?? RESTART_AFTER_OUT_OF_DESCRIPTORS_MS);
      this.restartTimer.unref();
      return;
    }
    if (this.restarts >= MAX_RESTARTS) {
      this.stopped = true;
      this.options.onError(
        new RequestLogStoppedError(
          'the request log thread stopped several times in a row; requests are no longer logged until Airlock restarts',
        ),
      );
      return;
    }
    this.restarts += 1;
    this.options.onError(new Error('the request log thread stopped; a new one logs the requests that follow'));
    this.worker = this.startWorker();
  }
}
