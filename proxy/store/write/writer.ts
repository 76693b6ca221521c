import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { RequestBodiesRecord, RequestLogRow } from '../../contracts/log.ts';
import { bodiesToParams, COLUMNS_SET_AFTER_START, REQUEST_COLUMNS, rowToParams } from './rowCodec.ts';

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
  private readonly setAnsweringStep: StatementSync;
  private disabledReason: string | null = null;

  constructor(db: DatabaseSync) {
    this.db = db;
    const placeholders = REQUEST_COLUMNS.map(() => '?').join(', ');
    const updates = COLUMNS_SET_AFTER_START.map((column) => `${column} = excluded.${column}`).join(', ');
    this.upsertRow = db.prepare(
      `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT (id) DO UPDATE SET ${updates}`,
    );
    this.insertBodies = db.prepare(
      `INSERT INTO request_bodies (request_id, request_headers, response_headers, request_body, request_truncated,
         response_body, response_truncated, stream_text, raw_events, stored_bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING`,
    );
    // An update leaves the indexed profile and model alone (COLUMNS_SET_AFTER_START); only a request
    // that fell back changes them, to the step that answered, so its spend counts for that profile.
    this.setAnsweringStep = db.prepare(
      'UPDATE requests SET profile_id = ?, upstream_model = ? WHERE id = ? AND (profile_id IS NOT ? OR upstream_model IS NOT ?)',
    );
    // New bodies wait for the full-text index (fullTextBackfill.ts); one statement lists a whole batch.
    this.listUnindexed = db.prepare('INSERT INTO request_bodies_unindexed (body_id) SELECT value FROM json_each(?)');
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
    try {
      this.transaction(batch, withBodies);
      return { outcome: 'written' };
    } catch (error) {
      if (!withBodies || !isDiskFullError(error)) return this.failed(error);
      this.disableBodies(DISK_FULL_REASON);
    }
    try {
      this.transaction(batch, false);
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

  private transaction(batch: LogBatch, withBodies: boolean): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const row of batch.rows) {
        this.upsertRow.run(...rowToParams(row));
        if (row.fallbackChain !== undefined) {
          this.setAnsweringStep.run(row.profileId, row.upstreamModel, row.id, row.profileId, row.upstreamModel);
        }
      }
      if (withBodies) this.insertBodiesOf(batch);
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  private insertBodiesOf(batch: LogBatch): void {
    const insertedBodyIds: number[] = [];
    for (const { requestId, record } of batch.bodies) {
      const result = this.insertBodies.run(...bodiesToParams(requestId, record));
      if (Number(result.changes) === 1) insertedBodyIds.push(Number(result.lastInsertRowid));
    }
    if (insertedBodyIds.length > 0) this.listUnindexed.run(JSON.stringify(insertedBodyIds));
  }
}
