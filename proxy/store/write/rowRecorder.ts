import { MAX_UNWRITTEN_ROWS, UnwrittenRows } from './unwrittenRows.ts';
import type { SpendEntry, UnwrittenState } from './unwrittenSpend.ts';
import type { RequestLogRow } from '../../contracts/log.ts';
import { isDamageError } from '../logCheck.ts';
import { DISK_FULL_REASON, withBodiesNotKept, type LogBatch, type LogWriter, type WriteOutcome } from './writer.ts';

/** How often rows kept in memory are tried again while the database cannot take them. */
const UNWRITTEN_RETRY_INTERVAL_MS = 1_000;
/** Rows per retried transaction: a disk still full fails the first one cheaply. */
const RETRY_CHUNK_ROWS = 500;

/** Where the spend of unwritten rows is saved outside the database (unwrittenSpendFile.ts on the log thread). */
export interface SpendRecordStore {
  /** Saves what is not written yet; null when saved, else why it could not be. */
  save(entries: readonly SpendEntry[]): string | null;
  /** Everything is written: the saved spend goes. */
  clear(): void;
  /** Whether the disk has room to try the rows again without taking what saving the spend needs. */
  hasRoom(): boolean;
}

export interface RowRecorderOptions {
  store: SpendRecordStore;
  /** Spend a previous run could not write, read back from its record. */
  carried: readonly SpendEntry[];
  onChange: (state: UnwrittenState) => void;
  onError: (error: unknown) => void;
}

/**
 * Writes rows, and keeps those the database cannot take (a full disk) in memory instead of
 * dropping them: newer rows queue behind them, so an older version never overwrites a newer one.
 * They are tried again every second, and at a flush, a close and after retention freed space.
 * The spend of what is not written is saved outside the database on every change, and the main
 * thread told, so totals, budgets and the next start all count it.
 */
export class RowRecorder {
  readonly #writer: LogWriter;
  readonly #options: RowRecorderOptions;
  readonly #rows: UnwrittenRows;
  #retryTimer: NodeJS.Timeout | null = null;
  #changed = false;
  /** Whether the main thread was last told of something not written. */
  #reportedUnwritten = false;
  #lastErrorMessage: string | null = null;
  /** The entries last saved, as saved; null when the last save failed or nothing is saved. */
  #savedText: string | null = null;
  /** The state last told to the main thread, so an unchanged one is not sent again. */
  #reportedText: string | null = null;
  /** Why the database last refused rows for another cause than space, told with the state. */
  #refusal: UnwrittenState['refusal'] = null;

  constructor(writer: LogWriter, options: RowRecorderOptions) {
    this.#writer = writer;
    this.#options = options;
    this.#rows = new UnwrittenRows(MAX_UNWRITTEN_ROWS, options.carried);
    if (!this.#rows.isEmpty) {
      // The main thread read the same record at open: it must hear when that spend is written.
      this.#reportedUnwritten = true;
      this.#changed = true;
      this.#scheduleRetry(0);
    }
  }

  /** Writes the batch, or keeps its rows (bodies are dropped: they are off on a full disk anyway, and each row that had some says so). */
  write(batch: LogBatch): 'written' | 'written_without_bodies' | 'kept' {
    if (batch.rows.length === 0 && batch.bodies.length === 0) return 'written';
    // Queued behind rows the database could not take: for want of room, unless it last refused them for another cause.
    if (this.#rows.keptRows === 0) {
      const result = this.#writer.write(batch);
      if (result.outcome !== 'failed') {
        this.#rows.noteWritten(batch.rows);
        return result.outcome;
      }
      this.#noteRefusal(result);
      if (!result.diskFull) this.#report(result.error);
    }
    const refusal = this.#refusal;
    this.#rows.keep(
      rowsWithoutBodies(batch, refusal === null ? DISK_FULL_REASON : `the request log could not write them (${refusal.cause}).`),
    );
    this.#changed = true;
    this.#scheduleRetry(UNWRITTEN_RETRY_INTERVAL_MS);
    return 'kept';
  }

  /** Keeps only the spend of these requests (folded before they reached this thread), and writes it as summary rows now. */
  addFolded(entries: readonly SpendEntry[]): void {
    if (entries.length === 0) return;
    this.#rows.addFolded(entries);
    this.retry();
  }

  /** Tries the rows kept (and the spend of those folded) again now. */
  retry(): void {
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    if (this.#rows.isEmpty) {
      this.publish();
      return;
    }
    if (this.#options.store.hasRoom()) this.#writeKept();
    // Published even if nothing was written: a save that failed before is tried again too
    // (publish saves and reports only what changed).
    this.#changed = true;
    this.publish();
    if (!this.#rows.isEmpty) this.#scheduleRetry(UNWRITTEN_RETRY_INTERVAL_MS);
  }

  /** Saves the unwritten spend if it changed since it was last saved (a save syncs the disk), and reports any change. */
  publish(): void {
    if (!this.#changed) return;
    this.#changed = false;
    const entries = this.#rows.spend();
    if (entries.length === 0) {
      this.#savedText = null;
      this.#reportedText = null;
      this.#refusal = null;
      if (!this.#reportedUnwritten) return;
      this.#options.store.clear();
      this.#reportedUnwritten = false;
      this.#options.onChange({ entries, keptRows: 0, foldedRequests: 0, saved: true, saveError: null, refusal: null });
      return;
    }
    const text = JSON.stringify(entries);
    const saveError = text === this.#savedText ? null : this.#options.store.save(entries);
    this.#savedText = saveError === null ? text : null;
    this.#reportedUnwritten = true;
    const state: UnwrittenState = {
      entries,
      keptRows: this.#rows.keptRows,
      foldedRequests: this.#rows.foldedRequests,
      saved: saveError === null,
      saveError,
      refusal: this.#refusal,
    };
    const reportedText = JSON.stringify(state);
    if (reportedText === this.#reportedText) return;
    this.#reportedText = reportedText;
    this.#options.onChange(state);
  }

  close(): void {
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  #writeKept(): void {
    for (let chunk = this.#rows.oldestRows(RETRY_CHUNK_ROWS); chunk.length > 0; chunk = this.#rows.oldestRows(RETRY_CHUNK_ROWS)) {
      const result = this.#writer.write({ rows: chunk, bodies: [] });
      if (result.outcome !== 'failed') {
        this.#rows.written(chunk);
        continue;
      }
      this.#noteRefusal(result);
      if (result.diskFull) return;
      // Refused twice for another reason than space: the rows go, their spend stays.
      this.#report(result.error);
      this.#rows.fold(chunk);
    }
    const summaries = this.#rows.summaryRows();
    if (summaries.length === 0) return;
    const result = this.#writer.write({ rows: summaries, bodies: [] });
    if (result.outcome !== 'failed') this.#rows.summariesWritten();
    else {
      this.#noteRefusal(result);
      if (!result.diskFull) this.#report(result.error);
    }
  }

  #scheduleRetry(delayMs: number): void {
    if (this.#retryTimer !== null) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.retry();
    }, delayMs);
    this.#retryTimer.unref();
  }

  /** A full disk clears an earlier refusal: what stops the rows now is space. */
  #noteRefusal(result: Extract<WriteOutcome, { outcome: 'failed' }>): void {
    this.#refusal = result.diskFull ? null : { cause: errorMessageOf(result.error), damaged: isDamageError(result.error) };
  }

  /** The same failure once, not at every retry. */
  #report(error: unknown): void {
    const message = errorMessageOf(error);
    if (message === this.#lastErrorMessage) return;
    this.#lastErrorMessage = message;
    this.#options.onError(error);
  }
}

/**
 * The batch's rows as kept in memory, without its bodies: a row that had some says why, as the rows
 * after it do. The first batch a full disk refuses fails with its bodies and again without them,
 * and its rows (a stream's end, its in-flight row already written) were written later without a word.
 */
function rowsWithoutBodies(batch: LogBatch, reason: string): RequestLogRow[] {
  if (batch.bodies.length === 0) return batch.rows;
  const hadBodies = new Set(batch.bodies.map((body) => body.requestId));
  return batch.rows.map((row) => (hadBodies.has(row.id) ? withBodiesNotKept(row, reason) : row));
}

function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
