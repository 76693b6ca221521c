import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { IdempotencyStore } from '../budget/idempotencyCache.ts';
import type { RequestListFilter, RequestLogRow, RequestLogStatus } from '../contracts/log.ts';
import { redactSecrets } from '../core/redact.ts';
import type { RequestLifecycleEvent } from '../events/lifecycle.ts';
import type { RequestEvents } from '../events/requestEvents.ts';
import { buildBodiesRecord, DEFAULT_BODY_CAP_BYTES } from './bodyRecord.ts';
import { DEFAULT_SLICE_LIMITS, nextSliceLength } from './eventSlice.ts';
import { DEFAULT_INDEX_SLICE, FullTextBackfill } from './fullTextBackfill.ts';
import { SqliteIdempotencyStore } from './idempotentAnswers.ts';
import { RequestLogQueries } from './queries.ts';
import { DEFAULT_RETENTION, runRetention, type RetentionPolicy, type RetentionResult } from './retention.ts';
import { storedBytesOf } from './rowCodec.ts';
import { applyRowEvent, maskRowText, rowFromStart } from './rowDraft.ts';
import { DATABASE_FILE_NAME, databaseFileBytes, openLogDatabase, usedDatabaseBytes } from './schema.ts';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, startWalCheckpointer, type WalCheckpointer } from './walCheckpointer.ts';
import { LogWriter, type LogBatch } from './writer.ts';

export interface RequestLogOptions {
  dataDir: string;
  /** Cap for each stored body (request, response, stream text, raw events). */
  bodyCapBytes?: number;
  /** The gateway key and the local client tokens: masked wherever they appear. */
  knownSecrets: () => string[];
  retention?: Partial<RetentionPolicy>;
  flushIntervalMs?: number;
  retentionIntervalMs?: number;
  /** Hard limit on the database file (SQLite max_page_count); past it writes fail as on a full disk. */
  maxDbBytes?: number;
  /** Below this much free disk space, bodies are no longer logged. */
  minFreeDiskBytes?: number;
  now?: () => number;
  /** Log failures that cost data (a dropped batch); never thrown into forwarding. */
  onError?: (error: unknown) => void;
}

type QueryMethods = Pick<
  RequestLogQueries,
  'listRequests' | 'getRequest' | 'spendByDay' | 'totals' | 'modelStats' | 'spendSince'
>;

export interface RequestLog extends QueryMethods {
  /** Subscribes to lifecycle events; listeners only enqueue. Returns the unsubscribe function. */
  attach(events: RequestEvents): () => void;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  /** Flushes, stops the timers and closes the database. Rows still in flight stay `in_flight`. */
  close(): Promise<void>;
  status(): RequestLogStatus;
  /** Marks rows a previous process left `in_flight` as `interrupted`; returns how many. Run at open. */
  markInterruptedFromPreviousRun(): number;
  /** Applies the retention policy now (it also runs at open and on a timer). */
  runRetention(): RetentionResult;
  /** First answers of keyed image and video creations, so a repeat is answered across restarts. */
  readonly idempotencyStore: IdempotencyStore;
}

export const DEFAULT_FLUSH_INTERVAL_MS = 50;
export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;
export const DEFAULT_MIN_FREE_DISK_BYTES = 100 * 1024 * 1024;
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/** Quiet time before bodies are added to the full-text index in the background. */
export const DEFAULT_INDEX_IDLE_DELAY_MS = 500;
/** Unindexed body bytes that make indexing run even under load: a search catches up in about a second. */
export const DEFAULT_MAX_UNINDEXED_BYTES = 4 * 1024 * 1024;

function freeDiskBytes(dir: string): number | null {
  try {
    const stats = statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return null;
  }
}

function lowDiskReason(minFreeDiskBytes: number): string {
  const megabytes = Math.round(minFreeDiskBytes / (1024 * 1024));
  return `Less than ${megabytes} MB is free on the disk: request bodies are no longer logged; requests and their figures still are. Free disk space to turn bodies back on.`;
}

class SqliteRequestLog implements RequestLog {
  private readonly db: DatabaseSync;
  private readonly writer: LogWriter;
  private readonly fullText: FullTextBackfill;
  private readonly checkpointer: WalCheckpointer;
  private readonly queries: RequestLogQueries;
  private readonly options: RequestLogOptions;
  private readonly retention: RetentionPolicy;
  private readonly bodyCapBytes: number;
  private readonly flushIntervalMs: number;
  private readonly minFreeDiskBytes: number;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private queue: RequestLifecycleEvent[] = [];
  /** Queued events per request: a row with more events still queued is written once, with the last. */
  private readonly queuedEventsByRequest = new Map<string, number>();
  /** Rows of requests still in flight, so a later event can complete them without a read. */
  private readonly drafts = new Map<string, RequestLogRow>();
  private flushTimer: NodeJS.Timeout | null = null;
  private continuation: NodeJS.Immediate | null = null;
  private readonly retentionTimer: NodeJS.Timeout;
  /** Database size when bodies were turned off: they come back once retention freed space. */
  private usedBytesWhenBodiesDisabled: number | null = null;
  private closed = false;
  private lastDbBytes = 0;

  readonly listRequests: RequestLogQueries['listRequests'];
  readonly getRequest: RequestLogQueries['getRequest'];
  readonly spendByDay: RequestLogQueries['spendByDay'];
  readonly totals: RequestLogQueries['totals'];
  readonly modelStats: RequestLogQueries['modelStats'];
  readonly spendSince: RequestLogQueries['spendSince'];
  readonly idempotencyStore: IdempotencyStore;

  constructor(options: RequestLogOptions) {
    this.options = options;
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.bodyCapBytes = options.bodyCapBytes ?? DEFAULT_BODY_CAP_BYTES;
    this.flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.minFreeDiskBytes = options.minFreeDiskBytes ?? DEFAULT_MIN_FREE_DISK_BYTES;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? ((error) => console.error('[airlock] request log write failed:', error));
    this.db = openLogDatabase({ dataDir: options.dataDir, maxDbBytes: options.maxDbBytes });
    this.writer = new LogWriter(this.db, this.onError);
    this.checkpointer = this.startCheckpointer();
    this.fullText = new FullTextBackfill(this.db, {
      idleDelayMs: DEFAULT_INDEX_IDLE_DELAY_MS,
      maxBacklogBytes: DEFAULT_MAX_UNINDEXED_BYTES,
      slice: DEFAULT_INDEX_SLICE,
      onError: this.onError,
    });
    this.queries = new RequestLogQueries(this.db);
    this.idempotencyStore = new SqliteIdempotencyStore(this.db, options.knownSecrets);
    this.listRequests = (filter) => this.queries.listRequests(this.indexedFor(filter));
    this.getRequest = this.queries.getRequest.bind(this.queries);
    this.spendByDay = this.queries.spendByDay.bind(this.queries);
    this.totals = this.queries.totals.bind(this.queries);
    this.modelStats = this.queries.modelStats.bind(this.queries);
    this.spendSince = this.queries.spendSince.bind(this.queries);

    // Maintenance at open must not stop logging: a full disk here only means less is cleaned up.
    this.safely(() => this.markInterruptedFromPreviousRun());
    this.safely(() => this.runRetention());
    this.retentionTimer = setInterval(() => this.safely(() => this.runRetention()), options.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
    this.retentionTimer.unref();
  }

  /** Checkpoints move to their own thread; should it die, this connection checkpoints itself again. */
  private startCheckpointer(): WalCheckpointer {
    this.db.exec('PRAGMA wal_autocheckpoint = 0');
    return startWalCheckpointer(join(this.options.dataDir, DATABASE_FILE_NAME), {
      intervalMs: DEFAULT_CHECKPOINT_INTERVAL_MS,
      onError: this.onError,
      onStopped: () => {
        if (!this.closed) this.safely(() => this.db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`));
      },
    });
  }

  /** A full-text search first indexes the bodies not indexed yet, so it finds every logged request. */
  private indexedFor(filter: RequestListFilter): RequestListFilter {
    if (filter.text?.trim() && !this.closed) this.safely(() => this.fullText.catchUp());
    return filter;
  }

  attach(events: RequestEvents): () => void {
    return events.subscribe((event) => this.enqueue(event));
  }

  private enqueue(event: RequestLifecycleEvent): void {
    // Deltas only feed the live view; the stream text arrives whole with `end`.
    if (this.closed || event.type === 'delta') return;
    this.queue.push(event);
    this.queuedEventsByRequest.set(event.requestId, (this.queuedEventsByRequest.get(event.requestId) ?? 0) + 1);
    this.fullText.noteActivity();
    if (this.flushTimer === null && this.continuation === null) {
      this.flushTimer = setTimeout(() => this.flushQueued(), this.flushIntervalMs);
      this.flushTimer.unref();
    }
  }

  async flush(): Promise<void> {
    while (this.queue.length > 0 && !this.closed) this.writeSlice();
  }

  /** Writes one slice, then lets the event loop run before the next (large bodies take a while to mask and index). */
  private flushQueued(): void {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.continuation = null;
    if (this.queue.length === 0 || this.closed) return;
    this.writeSlice();
    if (this.queue.length > 0) this.continuation = setImmediate(() => this.flushQueued());
  }

  private writeSlice(): void {
    const events = this.queue.splice(0, nextSliceLength(this.queue, DEFAULT_SLICE_LIMITS));
    for (const event of events) this.noteDequeued(event.requestId);
    try {
      const batch = this.batchFrom(events, this.options.knownSecrets());
      const outcome = this.writer.write(batch);
      this.noteBodiesState();
      if (outcome === 'written' && batch.bodies.length > 0) {
        this.fullText.noteWritten(batch.bodies.reduce((bytes, { record }) => bytes + storedBytesOf(record), 0));
      }
    } catch (error) {
      this.onError(error);
    }
  }

  private batchFrom(events: RequestLifecycleEvent[], secrets: string[]): LogBatch {
    const touched = new Map<string, RequestLogRow>();
    const bodies: LogBatch['bodies'] = [];
    for (const event of events) {
      if (event.type === 'delta') continue;
      if (event.type === 'start') {
        const row = rowFromStart(event);
        this.drafts.set(row.id, row);
        touched.set(row.id, row);
        continue;
      }
      const draft = this.drafts.get(event.requestId);
      // A request that started before the log attached has no row to complete.
      if (draft === undefined) continue;
      const row = applyRowEvent(draft, event);
      if (event.type === 'end') {
        this.drafts.delete(row.id);
        if (this.writer.bodiesDisabledReason === null) {
          bodies.push({ requestId: row.id, record: buildBodiesRecord(event.bodies, row.stream, this.bodyCapBytes, secrets) });
        }
      } else {
        this.drafts.set(row.id, row);
      }
      touched.set(row.id, row);
    }
    const mask = (text: string): string => redactSecrets(text, secrets);
    // An in-flight row with events still queued is left to a later slice of this flush (the queue
    // is always written to the end): most requests at high concurrency then take one write, not three.
    const settled = [...touched.values()].filter((row) => row.state !== 'in_flight' || !this.queuedEventsByRequest.has(row.id));
    return { rows: settled.map((row) => maskRowText(row, mask)), bodies };
  }

  private noteDequeued(requestId: string): void {
    const queued = (this.queuedEventsByRequest.get(requestId) ?? 1) - 1;
    if (queued > 0) this.queuedEventsByRequest.set(requestId, queued);
    else this.queuedEventsByRequest.delete(requestId);
  }

  private noteBodiesState(): void {
    if (this.writer.bodiesDisabledReason !== null && this.usedBytesWhenBodiesDisabled === null) {
      this.usedBytesWhenBodiesDisabled = usedDatabaseBytes(this.db);
    }
  }

  markInterruptedFromPreviousRun(): number {
    return Number(this.db.prepare("UPDATE requests SET state = 'interrupted' WHERE state = 'in_flight'").run().changes);
  }

  runRetention(): RetentionResult {
    const result = runRetention(this.db, this.retention, this.now());
    this.fullText.recount();
    this.updateBodiesSwitch(result.usedBytes);
    return result;
  }

  private safely(work: () => unknown): void {
    try {
      work();
    } catch (error) {
      this.onError(error);
    }
  }

  /** Bodies go off below the free-space floor and come back once space was freed. */
  private updateBodiesSwitch(usedBytes: number): void {
    const freeBytes = freeDiskBytes(this.options.dataDir);
    if (freeBytes !== null && freeBytes < this.minFreeDiskBytes) {
      this.writer.disableBodies(lowDiskReason(this.minFreeDiskBytes));
      this.noteBodiesState();
      return;
    }
    const reason = this.writer.bodiesDisabledReason;
    if (reason === null) return;
    const spaceFreed = this.usedBytesWhenBodiesDisabled !== null && usedBytes < this.usedBytesWhenBodiesDisabled;
    if (reason === lowDiskReason(this.minFreeDiskBytes) || spaceFreed) {
      this.writer.enableBodies();
      this.usedBytesWhenBodiesDisabled = null;
    }
  }

  status(): RequestLogStatus {
    if (!this.closed) this.lastDbBytes = databaseFileBytes(this.db);
    const reason = this.writer.bodiesDisabledReason;
    return { bodiesDisabled: reason !== null, reason, dbBytes: this.lastDbBytes };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.lastDbBytes = databaseFileBytes(this.db);
    // Keeps the query planner's statistics current, cheaply (SQLite's advice for long-lived connections).
    this.safely(() => this.db.exec('PRAGMA optimize'));
    this.closed = true;
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    if (this.continuation !== null) clearImmediate(this.continuation);
    clearInterval(this.retentionTimer);
    this.fullText.close();
    await this.checkpointer.close();
    this.db.close();
  }
}

/**
 * Opens the request log in `<dataDir>/requests.db`: marks rows a previous process left in flight
 * as interrupted, applies retention, then writes lifecycle events in batches off the request path.
 */
export function createRequestLog(options: RequestLogOptions): RequestLog {
  return new SqliteRequestLog(options);
}
