import type { DatabaseSync } from 'node:sqlite';
import { readPragma, usedDatabaseBytes } from '../schema.ts';
import { isDiskFullError } from './writer.ts';
import { forgetRecentPieces } from './recentPieces.ts';

export interface RetentionPolicy {
  /** Rows (with their figures) older than this are deleted. */
  maxAgeDays: number;
  /** Above this the oldest bodies go first, then the oldest rows. */
  maxTotalBytes: number;
  /** Bodies older than this are deleted; their rows stay. */
  bodyMaxAgeDays: number;
}

/** Keeps a heavy agent user (thousands of requests a day) under a few hundred MB. */
export const DEFAULT_RETENTION: RetentionPolicy = { maxAgeDays: 30, maxTotalBytes: 300 * 1024 * 1024, bodyMaxAgeDays: 7 };

export interface RetentionResult {
  bodiesDeleted: number;
  rowsDeleted: number;
  usedBytes: number;
}

const DAY_MS = 86_400_000;
/**
 * Deletes run in chunks so no single transaction holds the write lock for long: taking a body out
 * of the full-text index costs about 2 ms (a few KB of text), so a chunk holds it about 0.2 s.
 */
const DELETE_CHUNK = 100;
/** Rows without bodies are small; used to size a row deletion when only rows are left. */
const ESTIMATED_ROW_BYTES = 512;
/** Each pass frees about the estimate; a few passes cover what the estimate misses. */
const MAX_SIZE_PASSES = 8;

function deleteInChunks(db: DatabaseSync, sql: string, ...params: number[]): number {
  const statement = db.prepare(sql);
  let deleted = 0;
  for (;;) {
    const changes = Number(statement.run(...params, DELETE_CHUNK).changes);
    deleted += changes;
    if (changes < DELETE_CHUNK) return deleted;
  }
}

function deleteBodiesOlderThan(db: DatabaseSync, cutoffMs: number): number {
  return deleteInChunks(
    db,
    `DELETE FROM request_bodies WHERE body_id IN (
       SELECT b.body_id FROM request_bodies b JOIN requests r ON r.id = b.request_id
       WHERE r.started_at_ms < ? LIMIT ?)`,
    cutoffMs,
  );
}

function deleteRowsOlderThan(db: DatabaseSync, cutoffMs: number): number {
  // A row still in flight belongs to a live request; it goes once it ended or was marked interrupted.
  return deleteInChunks(
    db,
    `DELETE FROM requests WHERE id IN (
       SELECT id FROM requests WHERE started_at_ms < ? AND state != 'in_flight' LIMIT ?)`,
    cutoffMs,
  );
}

/**
 * Deletes the oldest bodies expected to free `bytesToFree`. Bodies cost more than their text (the
 * full-text index, page slack), so the text to drop is scaled by the database's bytes per stored
 * byte; the caller measures again and repeats if the estimate fell short.
 */
function deleteOldestBodies(db: DatabaseSync, usedBytes: number, bytesToFree: number): number {
  const totalStoredBytes = Number(
    db.prepare('SELECT (SELECT TOTAL(stored_bytes) FROM request_bodies) + (SELECT TOTAL(stored_bytes) FROM body_chunks) AS total').get()
      ?.total ?? 0,
  );
  if (totalStoredBytes === 0) return 0;
  const storedBytesToFree = bytesToFree / Math.max(1, usedBytes / totalStoredBytes);
  // A body stored as pieces counts the pieces it stored first: they go once no later body holds
  // them (schema.ts's triggers), so deleting an early turn of a running session frees little, and
  // the next pass measures again.
  const candidates = db
    .prepare(
      `SELECT b.body_id AS bodyId, b.stored_bytes + COALESCE(l.added_bytes, 0) AS storedBytes FROM request_bodies b
       JOIN requests r ON r.id = b.request_id LEFT JOIN request_body_chunk_lists l ON l.body_id = b.body_id
       ORDER BY r.started_at_ms, r.id`,
    )
    .iterate();
  const chosen: number[] = [];
  let chosenStoredBytes = 0;
  for (const candidate of candidates) {
    chosen.push(Number(candidate.bodyId));
    chosenStoredBytes += Number(candidate.storedBytes);
    if (chosenStoredBytes >= storedBytesToFree) break;
  }
  const remove = db.prepare('DELETE FROM request_bodies WHERE body_id = ?');
  let deleted = 0;
  for (let start = 0; start < chosen.length; start += DELETE_CHUNK) {
    inTransaction(db, () => {
      for (const bodyId of chosen.slice(start, start + DELETE_CHUNK)) deleted += Number(remove.run(bodyId).changes);
    });
  }
  return deleted;
}

function deleteOldestRows(db: DatabaseSync, count: number, keepRowsFromMs: number): number {
  return Number(
    db
      .prepare(
        `DELETE FROM requests WHERE id IN (
           SELECT id FROM requests WHERE state != 'in_flight' AND started_at_ms < ? ORDER BY started_at_ms, id LIMIT ?)`,
      )
      .run(keepRowsFromMs, count).changes,
  );
}

function inTransaction(db: DatabaseSync, work: () => void): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    work();
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/**
 * Drops deleted entries from the full-text index, then hands free pages back to the file system.
 * The index rewrite needs room for a new copy of the index: on a full disk it waits for a later
 * pass (searches stay right meanwhile), and the pages the deletes freed are handed back all the
 * same, which is what gives the disk its room again.
 */
function compact(db: DatabaseSync): void {
  for (const index of ['request_bodies_fts', 'body_chunks_fts']) {
    try {
      db.exec(`INSERT INTO ${index} (${index}) VALUES ('optimize')`);
    } catch (error) {
      if (!isDiskFullError(error)) throw error;
    }
  }
  returnFreePages(db);
}

/** Pages moved per step at first; the WAL must hold a step's pages until its checkpoint. */
const VACUUM_STEP_PAGES = 4096;
const MIN_VACUUM_STEP_PAGES = 8;

/**
 * Moves free pages to the end of the file and cuts them off, a step at a time, each step's WAL
 * checkpointed and truncated: a step that finds no room for its WAL is retried smaller, so a
 * nearly full disk still gets its space back.
 */
function returnFreePages(db: DatabaseSync): void {
  let stepPages = VACUUM_STEP_PAGES;
  for (let freePages = freelistCount(db); freePages > 0; ) {
    try {
      db.exec(`PRAGMA incremental_vacuum(${stepPages})`);
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch (error) {
      if (!isDiskFullError(error) || stepPages <= MIN_VACUUM_STEP_PAGES) throw error;
      stepPages = Math.max(MIN_VACUUM_STEP_PAGES, Math.floor(stepPages / 8));
      continue;
    }
    const left = freelistCount(db);
    // A step that freed nothing (a reader holds the pages) ends the pass; the next one goes on.
    if (left >= freePages) return;
    freePages = left;
  }
}

const freelistCount = (db: DatabaseSync): number => Number(readPragma(db, 'freelist_count'));

/**
 * Applies the policy: bodies past their age, rows past theirs, then (if still above the size
 * limit) the oldest bodies and, only when no body is left, the oldest rows. Rows started at or
 * after `keepRowsFromMs` (the start of the local month, which the caller's zone decides) are never
 * deleted: a restart seeds monthly caps and the Spend screen's month from them, and 30 days back
 * reaches into a 31-day month. Deleted pages count as
 * free at once, so the size passes measure without compacting; the one compaction at the end
 * rewrites the full-text index (over a second for a 200 MB log), which each pass used to repeat.
 * Runs off the request path, on the log thread: at open and on a timer.
 */
export function runRetention(db: DatabaseSync, policy: RetentionPolicy, nowMs: number, keepRowsFromMs: number): RetentionResult {
  // Pieces go with the last body holding them: the ids the writer keeps for them may be gone.
  let result: RetentionResult;
  try {
    result = deleteBeyond(db, policy, nowMs, keepRowsFromMs);
  } catch (error) {
    forgetRecentPieces(db);
    throw error;
  }
  if (result.bodiesDeleted + result.rowsDeleted > 0) forgetRecentPieces(db);
  return result;
}

function deleteBeyond(db: DatabaseSync, policy: RetentionPolicy, nowMs: number, keepRowsFromMs: number): RetentionResult {
  let bodiesDeleted = deleteBodiesOlderThan(db, nowMs - policy.bodyMaxAgeDays * DAY_MS);
  let rowsDeleted = deleteRowsOlderThan(db, Math.min(nowMs - policy.maxAgeDays * DAY_MS, keepRowsFromMs));

  let usedBytes = usedDatabaseBytes(db);
  for (let pass = 0; pass < MAX_SIZE_PASSES && usedBytes > policy.maxTotalBytes; pass += 1) {
    const bytesToFree = usedBytes - policy.maxTotalBytes;
    let deleted = deleteOldestBodies(db, usedBytes, bytesToFree);
    bodiesDeleted += deleted;
    if (deleted === 0) {
      deleted = deleteOldestRows(db, Math.max(DELETE_CHUNK, Math.ceil(bytesToFree / ESTIMATED_ROW_BYTES)), keepRowsFromMs);
      rowsDeleted += deleted;
    }
    if (deleted === 0) break;
    usedBytes = usedDatabaseBytes(db);
  }
  if (bodiesDeleted + rowsDeleted > 0) compact(db);
  // Pages an earlier pass freed but could not hand back (a full disk) go back now.
  else returnFreePages(db);
  usedBytes = usedDatabaseBytes(db);
  return { bodiesDeleted, rowsDeleted, usedBytes };
}
