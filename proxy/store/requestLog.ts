import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { startOfLocalMonthMs } from '../core/localPeriods.ts';
import type { IdempotencyStore } from '../contracts/idempotencyStore.ts';
import { unstatedInputNote, type EndedRowSummary, type LedgerGap, type RequestLogStatus } from '../contracts/log.ts';
import type { RequestEvents } from '../contracts/requestEvents.ts';
import { DEFAULT_BODY_CAP_BYTES } from './write/bodyRecord.ts';
import { SqliteIdempotencyStore } from './write/idempotentAnswers.ts';
import { BodiesSwitch } from './bodiesSwitch.ts';
import { isDamageError, recordCleanClose, RequestLogUnreadableError } from './logCheck.ts';
import { LogThreadClient } from './write/logThreadClient.ts';
import { RequestLogQueries } from './read/queries.ts';
import { SessionQueries } from './read/sessionQueries.ts';
import { LogReader } from './read/logReader.ts';
import { windowReadsOf, type WindowReads } from './read/windowReads.ts';
import { damageMarkedIdempotencyStore, damageMarkedSessions, type SessionReads } from './damageMarked.ts';
import { DEFAULT_RETENTION, type RetentionPolicy, type RetentionResult } from './write/retention.ts';
import { DATABASE_FILE_NAME, databaseFileBytes, openLogDatabase, usedDatabaseBytes } from './schema.ts';
import { UnwrittenMirror } from './write/unwrittenMirror.ts';
import { summaryRowOf } from './write/unwrittenRows.ts';
import { type FutureRows, futureRowsNotice, redateFutureRows } from './futureRows.ts';
import { spendSinceWith, totalsWith, type SpendEntry } from './write/unwrittenSpend.ts';
import { clearUnwrittenSpend, readSavedSpend, takeUnsavedMark } from './write/unwrittenSpendFile.ts';
import { LogWriter } from './write/writer.ts';
import {
  checkpointOnOwnConnection,
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_STOP_AFTER_QUIET_CHECKS,
  leaveCheckpointsToThread,
  startWalCheckpointer,
  type WalCheckpointer,
} from './write/walCheckpointer.ts';

export interface RequestLogOptions {
  dataDir: string;
  /** Cap for each stored body (request, response, stream text, raw events). */
  bodyCapBytes?: number;
  /** What the queue of work the log thread has not taken in may hold (read at each post: a setting). */
  backlogBytes?: () => number;
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
  /** Told, in words, when what is recorded changes (rows start or stop waiting for disk space). */
  onRecordingChange?: (message: string) => void;
}

/** The reads the CLI, the status and the caps make on the main connection; the window's go through `reads`. */
type QueryMethods = Pick<RequestLogQueries, 'listRequests' | 'getRequest' | 'totals' | 'spendSince'>;

export interface RequestLog extends QueryMethods {
  /** Subscribes to lifecycle events; listeners only queue them for the log thread. Returns the unsubscribe function. */
  attach(events: RequestEvents): () => void;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  /** Told the summaries of requests that ended, once the log thread has read them; returns the unsubscribe function. */
  onRowSummaries(listener: (summaries: EndedRowSummary[]) => void): () => void;
  /** Flushes, stops the timers and closes the database. Rows still in flight stay `in_flight`. */
  close(): Promise<void>;
  status(): RequestLogStatus;
  /** Marks rows a previous process left `in_flight` as `interrupted`; returns how many. Run at open. */
  markInterruptedFromPreviousRun(): number;
  /**
   * Applies the retention policy now, on the log thread (it also runs at open and on a timer);
   * null if it failed, which onError was told.
   */
  runRetention(): Promise<RetentionResult | null>;
  /** First answers of keyed image and video creations, so a repeat is answered across restarts. */
  readonly idempotencyStore: IdempotencyStore;
  /** Spend missing from the log that no one can account for: capped budgets cannot be checked. */
  ledgerGap(nowMs: number): LedgerGap | null;
  /** What a user must know at open (an earlier run's unwritten spend, rows dated ahead), one notice a cause. */
  readonly startNotices: readonly string[];
  /** Requests grouped by agent session. */
  readonly sessions: SessionReads;
  /**
   * The window's reads, on the reader thread: a month's spend or the filter counts take a second
   * or more on a large log, which the synchronous queries above spend on the forwarding thread.
   */
  readonly reads: WindowReads;
}

export const DEFAULT_FLUSH_INTERVAL_MS = 50;
export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;
export const DEFAULT_MIN_FREE_DISK_BYTES = 100 * 1024 * 1024;
const MAIN_CONNECTION_BUSY_TIMEOUT_MS = 250;

/**
 * The log's file could not be opened or upgraded (a full disk, permissions): the start fails
 * naming the file, the cause and the fix, not with SQLite's bare words. A plain Error (a log of a
 * newer Airlock) already says what to do.
 */
function openMainConnection(options: RequestLogOptions): DatabaseSync {
  try {
    return openLogDatabase({ dataDir: options.dataDir, maxDbBytes: options.maxDbBytes });
  } catch (error) {
    const fromTheDisk =
      (error as { errcode?: unknown; code?: unknown }).errcode !== undefined || typeof (error as { code?: unknown }).code === 'string';
    throw fromTheDisk ? new RequestLogUnreadableError(join(options.dataDir, DATABASE_FILE_NAME), error) : error;
  }
}

/**
 * The main thread's side of the log: it reads (queries, the idempotency store) on its own
 * connection, while the log thread turns events into rows, writes them and applies retention.
 */
class SqliteRequestLog implements RequestLog {
  private readonly db: DatabaseSync;
  private readonly thread: LogThreadClient;
  private readonly summaryListeners = new Set<(summaries: EndedRowSummary[]) => void>();
  private readonly checkpointer: WalCheckpointer;
  private readonly queries: RequestLogQueries;
  private readonly options: RequestLogOptions;
  private readonly retention: RetentionPolicy;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private readonly retentionTimer: NodeJS.Timeout;
  /** Why bodies are not logged, as the log thread last reported or was told, and when they come back. */
  private readonly bodies: BodiesSwitch;
  private closed = false;
  private lastDbBytes = 0;
  /** SQLite called the file damaged this run: the next start must check it, so no clean close is recorded. */
  private damageSeen = false;
  private readonly unwritten: UnwrittenMirror;
  private readonly reader: LogReader;

  readonly listRequests: RequestLogQueries['listRequests'];
  readonly getRequest: RequestLogQueries['getRequest'];
  readonly totals: RequestLogQueries['totals'];
  readonly spendSince: RequestLogQueries['spendSince'];
  readonly idempotencyStore: IdempotencyStore;
  readonly startNotices: readonly string[];
  readonly sessions: SessionReads;
  readonly reads: WindowReads;

  constructor(options: RequestLogOptions) {
    this.options = options;
    this.retention = { ...DEFAULT_RETENTION, ...options.retention };
    this.now = options.now ?? Date.now;
    const reportError = options.onError ?? ((error) => console.error('[airlock] request log write failed:', error));
    this.onError = (error) => {
      if (isDamageError(error)) this.damageSeen = true;
      reportError(error);
    };
    this.db = openMainConnection(options);
    this.bodies = new BodiesSwitch({
      dataDir: options.dataDir,
      minFreeDiskBytes: options.minFreeDiskBytes ?? DEFAULT_MIN_FREE_DISK_BYTES,
      sizeLimited: options.maxDbBytes !== undefined,
      usedBytes: () => usedDatabaseBytes(this.db),
      onSwitch: (reason) => this.thread.setBodiesDisabled(reason),
      onChange: () => this.options.onRecordingChange?.(this.describeRecording()),
      onError: this.onError,
    });
    leaveCheckpointsToThread(this.db);
    // This connection writes only keyed image and video creations, from the thread that forwards.
    // The log thread holds the write lock for up to a second or two (an index rewrite): waiting
    // that long would stall every stream, so such a write gives up sooner and the answer stays in
    // memory only (the idempotency cache reports it).
    this.db.exec(`PRAGMA busy_timeout = ${MAIN_CONNECTION_BUSY_TIMEOUT_MS}`);
    // Maintenance at open must not stop logging: a full disk here only means less is cleaned up.
    this.safely(() => this.markInterruptedFromPreviousRun());
    // Before the thread starts: the ledger is seeded from the totals right after, and the spend
    // must then be in the database or in the mirror, not in both.
    const saved = readSavedSpend(options.dataDir);
    // Before the summaries: writing them clears this run's mark, not an earlier run's loss.
    const unsaved = takeUnsavedMark(options.dataDir);
    const openedAtMs = this.now();
    const writtenAtOpen = saved.kind === 'saved' && this.writeSummaries(saved.entries);
    this.unwritten = new UnwrittenMirror(options.dataDir, saved, writtenAtOpen, unsaved, openedAtMs);
    // After the summaries: an earlier run's saved spend is dated by its day, which may lie ahead too.
    let futureRows: FutureRows = { redated: 0, leftBehindClock: 0 };
    this.safely(() => (futureRows = redateFutureRows(this.db, openedAtMs)));
    const futureNotice = futureRowsNotice(futureRows, openedAtMs);
    this.startNotices = [...(futureNotice === null ? [] : [futureNotice]), ...this.unwritten.startNotices];
    this.thread = new LogThreadClient({
      dataDir: options.dataDir,
      ...(options.maxDbBytes === undefined ? {} : { maxDbBytes: options.maxDbBytes }),
      bodyCapBytes: options.bodyCapBytes ?? DEFAULT_BODY_CAP_BYTES,
      postIntervalMs: options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS,
      knownSecrets: options.knownSecrets,
      onError: this.onError,
      onBodiesState: (reason) => this.bodies.note(reason),
      onSummaries: (summaries) => {
        for (const listener of this.summaryListeners) listener(summaries);
      },
      ...(options.backlogBytes === undefined ? {} : { backlogBytes: options.backlogBytes }),
      onBehindChange: () => this.options.onRecordingChange?.(this.describeRecording()),
      onUnwritten: (state) => {
        const before = this.unwritten.status();
        this.unwritten.update(state);
        const after = this.unwritten.status();
        if ((before === null) !== (after === null) || before?.saved !== after?.saved)
          this.options.onRecordingChange?.(this.describeRecording());
      },
    });
    this.checkpointer = this.startCheckpointer();
    this.queries = new RequestLogQueries(this.db, options.knownSecrets);
    const marking = <T>(query: () => T): T => this.read(query);
    this.sessions = damageMarkedSessions(new SessionQueries(this.db, options.knownSecrets), marking);
    this.idempotencyStore = damageMarkedIdempotencyStore(new SqliteIdempotencyStore(this.db, options.knownSecrets), marking);
    const queries = this.queries;
    this.listRequests = (query) => this.read(() => queries.listRequests(query));
    this.getRequest = (id) => this.read(() => queries.getRequest(id));
    // Requests the database could not take (a full disk), or that were folded while the log thread
    // was behind and have not reached it, count as if it had them.
    const unwrittenEntries = (): SpendEntry[] => [...this.unwritten.entries, ...this.thread.foldedSpend()];
    this.totals = (query) => this.read(() => totalsWith(queries.totals(query), unwrittenEntries(), query));
    this.spendSince = (query) => this.read(() => spendSinceWith(queries.spendSince(query), unwrittenEntries(), query));
    this.reader = new LogReader({
      databasePath: join(options.dataDir, DATABASE_FILE_NAME),
      knownSecrets: options.knownSecrets,
      onError: this.onError,
    });
    this.reads = windowReadsOf(this.reader.reads, unwrittenEntries, (read) => this.readLater(read));

    // A disk already short of space turns bodies off before the first request, not after retention.
    this.safely(() => this.bodies.update(usedDatabaseBytes(this.db)));
    void this.runRetention();
    this.retentionTimer = setInterval(() => void this.runRetention(), options.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
    this.retentionTimer.unref();
  }

  /** Checkpoints move to their own thread; should it die, the connections checkpoint themselves again. */
  private startCheckpointer(): WalCheckpointer {
    return startWalCheckpointer(join(this.options.dataDir, DATABASE_FILE_NAME), {
      intervalMs: DEFAULT_CHECKPOINT_INTERVAL_MS,
      // Started by the first request and ended after a quiet spell: an idle proxy holds no thread for it.
      stopAfterQuietChecks: DEFAULT_STOP_AFTER_QUIET_CHECKS,
      startNow: false,
      onError: this.onError,
      onStopped: () => {
        if (this.closed) return;
        this.safely(() => checkpointOnOwnConnection(this.db));
        this.thread.setOwnCheckpoints(true);
      },
      // The main connection leaves checkpoints to the thread whatever: it writes only during requests, which wake it.
      onRunning: (running) => this.thread.setOwnCheckpoints(!running),
    });
  }

  attach(events: RequestEvents): () => void {
    return events.subscribe((event) => {
      // Deltas and the in-flight request only feed the live view; the log gets both whole with `end`.
      if (this.closed || event.type === 'delta' || event.type === 'request') return;
      this.thread.enqueue(event);
      this.checkpointer.wake();
    });
  }

  onRowSummaries(listener: (summaries: EndedRowSummary[]) => void): () => void {
    this.summaryListeners.add(listener);
    return () => this.summaryListeners.delete(listener);
  }

  flush(): Promise<void> {
    return this.closed ? Promise.resolve() : this.thread.flush();
  }

  /** Writes an earlier run's unwritten spend as summary rows; false if the database cannot take them yet. */
  private writeSummaries(entries: readonly SpendEntry[]): boolean {
    try {
      if (new LogWriter(this.db).write({ rows: entries.map(summaryRowOf), bodies: [] }).outcome === 'failed') return false;
      clearUnwrittenSpend(this.options.dataDir);
      return true;
    } catch (error) {
      this.onError(error);
      return false;
    }
  }

  /**
   * A row that carries only its input estimate was waiting for the gateway's answer (or its first
   * text) when the run ended: labelled as the live accounting labels an attempt left unanswered.
   */
  markInterruptedFromPreviousRun(): number {
    const marked = this.db.prepare(
      `UPDATE requests SET state = 'interrupted',
         notes = CASE WHEN usage_source = 'estimated' AND output_tokens = 0 THEN json_insert(notes, '$[#]', ?) ELSE notes END
       WHERE state = 'in_flight'`,
    );
    return Number(marked.run(unstatedInputNote('an attempt')).changes);
  }

  async runRetention(): Promise<RetentionResult | null> {
    const nowMs = this.now();
    // The month is cut in this thread's zone: the log thread does not follow a change of the OS's zone.
    const result = await this.thread.runRetention(this.retention, nowMs, startOfLocalMonthMs(nowMs));
    if (result !== null && !this.closed) this.safely(() => this.bodies.update(result.usedBytes));
    return result;
  }

  /**
   * A read on this connection (the window's lists, totals, the ledger's seed, the session screens,
   * keyed creations' lookups and their kept answers) that finds the file
   * damaged is reported as the log thread's writes are: the user is told, and no clean close is
   * recorded, so the next start checks the file and sets it aside. Recorded, the next start skipped
   * its check and failed on the damaged page.
   */
  private read<T>(query: () => T): T {
    try {
      return query();
    } catch (error) {
      if (isDamageError(error)) this.onError(error);
      throw error;
    }
  }

  /** `read` for a read answered later (the reader thread's): damage it meets is reported the same way. */
  private async readLater<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (isDamageError(error)) this.onError(error);
      throw error;
    }
  }

  private safely(work: () => unknown): void {
    try {
      work();
    } catch (error) {
      this.onError(error);
    }
  }

  status(): RequestLogStatus {
    if (!this.closed) this.safely(() => (this.lastDbBytes = databaseFileBytes(this.db)));
    const bodiesReason = this.bodies.reason ?? this.thread.behindReason;
    const unwritten = this.unwritten.status();
    this.unwritten.recheckLostSpend(this.now());
    return {
      bodiesDisabled: bodiesReason !== null,
      reason: bodiesReason === null && unwritten === null ? null : this.describeRecording(),
      dbBytes: this.lastDbBytes,
      unwritten,
      ledgerGap: this.unwritten.ledgerGap(this.now()),
    };
  }

  ledgerGap(nowMs: number): LedgerGap | null {
    return this.unwritten.ledgerGap(nowMs);
  }

  /** What is and is not recorded, in words: bodies (a full disk, or the log thread behind), then rows. */
  private describeRecording(): string {
    const everyRow = this.thread.foldsRequests ? null : 'Every request and its figures are logged.';
    const parts = [this.bodies.reason, this.thread.behindReason, this.unwritten.describe() ?? everyRow];
    return parts.filter((part) => part !== null).join(' ');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.reader.close();
    await this.thread.close();
    this.lastDbBytes = databaseFileBytes(this.db);
    // Keeps the query planner's statistics current, cheaply (SQLite's advice for long-lived connections).
    this.safely(() => this.db.exec('PRAGMA optimize'));
    this.closed = true;
    clearInterval(this.retentionTimer);
    this.bodies.close();
    this.unwritten.close();
    await this.checkpointer.close();
    this.db.close();
    if (!this.damageSeen) this.safely(() => recordCleanClose(this.options.dataDir, DATABASE_FILE_NAME));
  }
}

/**
 * Opens the request log in `<dataDir>/requests.db`: marks rows a previous process left in flight
 * as interrupted, then writes lifecycle events in batches on the log thread, which applies
 * retention at open and every ten minutes.
 */
export function createRequestLog(options: RequestLogOptions): RequestLog {
  return new SqliteRequestLog(options);
}
