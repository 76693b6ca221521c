import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { RequestBodiesRecord, RequestLogRow } from '../../contracts/log.ts';
import { ChunkStore, type Piece } from './chunkStore.ts';
import { bodiesToParams, COLUMNS_SET_AFTER_START, REQUEST_COLUMNS, rowToParams, storedBytesOf } from './rowCodec.ts';

/** One flush: rows to insert or replace, and bodies of requests that ended. */
export interface LogBatch {
  rows: RequestLogRow[];
  bodies: Array<{ requestId: string; record: RequestBodiesRecord }>;
}

/** `failed`: nothing of the batch was written; the caller keeps its rows (see UnwrittenRows). */
export type WriteOutcome = { outcome: 'written' | 'written_without_bodies' } | { outcome: 'failed'; error: unknown; diskFull: boolean };

const SQLITE_FULL = 13;

/** SQLite's "database or disk is full" (a real full disk or max_page_count), or ENOSPC from the OS. */
export function isDiskFullError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errcode, code } = error as { errcode?: unknown; code?: unknown };
  return errcode === SQLITE_FULL || code === 'ENOSPC';
}

export const DISK_FULL_REASON =
  'The disk (or the log size limit) is full: request bodies are no longer logged. Free disk space or lower the log retention.';

/** A row whose bodies the log did not keep says why, as the request detail shows its notes. */
export function withBodiesNotKept(row: RequestLogRow, reason: string): RequestLogRow {
  return { ...row, notes: [...row.notes, `Bodies not kept: ${reason}`] };
}

/**
 * Writes batches in one transaction each with prepared statements. A full disk turns bodies off
 * (rows are smaller and carry the figures budgets need) instead of failing: the log must never
 * be the reason a request fails. A batch whose rows cannot be written either is reported failed.
 */
export class LogWriter {
  private readonly db: DatabaseSync;
  private readonly upsertRow: StatementSync;
  private readonly insertBodies: StatementSync;
  private readonly listUnindexed: StatementSync;
  private readonly chunks: ChunkStore;
  private readonly setAnsweringStep: StatementSync;
  private disabledReason: string | null = null;
  private storedBodyBytes = 0;

  constructor(db: DatabaseSync) {
    this.db = db;
    const placeholders = REQUEST_COLUMNS.map(() => '?').join(', ');
    const updates = COLUMNS_SET_AFTER_START.map((column) => `${column} = excluded.${column}`).join(', ');
    this.upsertRow = db.prepare(
      `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT (id) DO UPDATE SET ${updates}`,
    );
    this.insertBodies = db.prepare(
      `INSERT INTO request_bodies (request_id, request_headers, response_headers, request_body, request_truncated,
         response_body, response_truncated, stream_text, raw_events, raw_event_offsets, stored_bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING`,
    );
    // An update leaves the indexed profile and model alone (COLUMNS_SET_AFTER_START); only a request
    // that fell back changes them, to the step that answered, so its spend counts for that profile.
    this.setAnsweringStep = db.prepare(
      'UPDATE requests SET profile_id = ?, upstream_model = ? WHERE id = ? AND (profile_id IS NOT ? OR upstream_model IS NOT ?)',
    );
    // New bodies wait for the full-text index (fullTextBackfill.ts); one statement lists a whole batch.
    this.listUnindexed = db.prepare('INSERT INTO request_bodies_unindexed (body_id) SELECT value FROM json_each(?)');
    this.chunks = new ChunkStore(db);
  }

  /** Body text the last written batch stored for the first time (a request body's known pieces not counted). */
  get lastStoredBodyBytes(): number {
    return this.storedBodyBytes;
  }

  get bodiesDisabledReason(): string | null {
    return this.disabledReason;
  }

  disableBodies(reason: string): void {
    this.disabledReason = reason;
  }

  enableBodies(): void {
    this.disabledReason = null;
  }

  write(batch: LogBatch): WriteOutcome {
    const withBodies = this.disabledReason === null && batch.bodies.length > 0;
    this.storedBodyBytes = 0;
    try {
      if (withBodies) this.transactionWithBodies(batch);
      else this.transaction(batch.rows);
      return { outcome: 'written' };
    } catch (error) {
      if (!withBodies || !isDiskFullError(error)) return this.failed(error);
      this.disableBodies(DISK_FULL_REASON);
    }
    try {
      const withBodies = new Set(batch.bodies.map((body) => body.requestId));
      this.transaction(batch.rows.map((row) => (withBodies.has(row.id) ? withBodiesNotKept(row, DISK_FULL_REASON) : row)));
      return { outcome: 'written_without_bodies' };
    } catch (error) {
      return this.failed(error);
    }
  }

  private failed(error: unknown): WriteOutcome {
    const diskFull = isDiskFullError(error);
    if (diskFull) this.disableBodies(DISK_FULL_REASON);
    return { outcome: 'failed', error, diskFull };
  }

  private transaction(rows: readonly RequestLogRow[], writeBodies?: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const row of rows) {
        this.upsertRow.run(...rowToParams(row));
        if (row.fallbackChain !== undefined) {
          this.setAnsweringStep.run(row.profileId, row.upstreamModel, row.id, row.profileId, row.upstreamModel);
        }
      }
      writeBodies?.();
      this.db.exec('COMMIT');
    } catch (error) {
      this.chunks.transactionEnded(false);
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
    this.chunks.transactionEnded(true);
  }

  private transactionWithBodies(batch: LogBatch): void {
    // Cut and hashed before the write lock is taken.
    const prepared = batch.bodies.map(({ requestId, record }) => {
      const pieces = this.chunks.piecesOf(record.requestBody);
      return { requestId, record: pieces === null ? record : { ...record, requestBody: null }, pieces };
    });
    this.transaction(batch.rows, () => this.insertBodiesOf(prepared));
  }

  private insertBodiesOf(bodies: Array<{ requestId: string; record: RequestBodiesRecord; pieces: Piece[] | null }>): void {
    const insertedBodyIds: number[] = [];
    let storedBytes = 0;
    for (const { requestId, record, pieces } of bodies) {
      const textBytes = storedBytesOf(record);
      const result = this.insertBodies.run(...bodiesToParams(requestId, record, textBytes));
      if (Number(result.changes) !== 1) continue;
      const bodyId = Number(result.lastInsertRowid);
      insertedBodyIds.push(bodyId);
      storedBytes += textBytes;
      if (pieces !== null) storedBytes += this.chunks.store(bodyId, pieces);
    }
    if (insertedBodyIds.length > 0) this.listUnindexed.run(JSON.stringify(insertedBodyIds));
    this.storedBodyBytes = storedBytes;
  }
}
