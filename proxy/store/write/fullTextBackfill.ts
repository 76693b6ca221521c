import type { DatabaseSync } from 'node:sqlite';

export interface IndexSliceLimits {
  maxRows: number;
  /** Body bytes indexed in one transaction, which holds the write lock while it runs. */
  maxBytes: number;
}

/**
 * Each slice adds an index segment that FTS5 merges later, so small slices cost more in total:
 * 30 000 bench-sized bodies took 143 us each in 32 KB slices, 30 us in 1 MB ones. A slice of small
 * bodies then holds the write lock for about 75 ms; a merge inside a slice of any size takes 100 to
 * 300 ms anyway, and nothing on the request path writes often. A single larger body goes in whole.
 */
export const DEFAULT_INDEX_SLICE: IndexSliceLimits = { maxRows: 5_000, maxBytes: 1024 * 1024 };

/**
 * Indexes the oldest unindexed bodies, up to the limits (at least one), in one transaction. One
 * INSERT ... SELECT for many rows lets FTS5 build one segment instead of one per row. Returns
 * how many bodies were indexed and their stored bytes.
 */
export function indexUnindexedSlice(db: DatabaseSync, limits: IndexSliceLimits): { rows: number; bytes: number } {
  db.exec('BEGIN IMMEDIATE');
  try {
    const candidates = db
      .prepare(
        `SELECT p.body_id AS bodyId, b.stored_bytes AS storedBytes
         FROM request_bodies_unindexed p JOIN request_bodies b USING (body_id) ORDER BY p.body_id LIMIT ?`,
      )
      .iterate(limits.maxRows);
    let rows = 0;
    let bytes = 0;
    let lastBodyId = 0;
    for (const candidate of candidates) {
      const storedBytes = Number(candidate.storedBytes);
      if (rows > 0 && bytes + storedBytes > limits.maxBytes) break;
      rows += 1;
      bytes += storedBytes;
      lastBodyId = Number(candidate.bodyId);
    }
    if (rows > 0) {
      db.prepare(
        `INSERT INTO request_bodies_fts (rowid, request_body, response_body, stream_text)
         SELECT b.body_id, b.request_body, b.response_body, b.stream_text
         FROM request_bodies_unindexed p JOIN request_bodies b USING (body_id) WHERE p.body_id <= ?`,
      ).run(lastBodyId);
      db.prepare('DELETE FROM request_bodies_unindexed WHERE body_id <= ?').run(lastBodyId);
    }
    db.exec('COMMIT');
    return { rows, bytes };
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

export function unindexedBytes(db: DatabaseSync): number {
  return Number(
    db.prepare('SELECT TOTAL(b.stored_bytes) AS total FROM request_bodies_unindexed p JOIN request_bodies b USING (body_id)').get()
      ?.total ?? 0,
  );
}

export interface FullTextBackfillOptions {
  /** The log counts as idle once no event arrived for this long; only then the background pass runs. */
  idleDelayMs: number;
  /** Above this many unindexed bytes, indexing also runs while busy: a search scans the unindexed bodies. */
  maxBacklogBytes: number;
  slice: IndexSliceLimits;
  onError: (error: unknown) => void;
}

/** The background pass spends at most 1 / (1 + this) of a core, so other work keeps the CPU. */
const BACKGROUND_GAP_PER_WORK = 4;

/**
 * Keeps the full-text index filled without paying for it per request: bodies are indexed in bulk
 * when the log is idle, in slices spaced out so the pass stays low priority; a search reads the
 * bodies not indexed yet directly (RequestLogQueries), so its results are complete.
 */
export class FullTextBackfill {
  private readonly db: DatabaseSync;
  private readonly options: FullTextBackfillOptions;
  private backlogBytes: number;
  private lastActivityMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private closed = false;

  constructor(db: DatabaseSync, options: FullTextBackfillOptions) {
    this.db = db;
    this.options = options;
    this.backlogBytes = unindexedBytes(db);
    if (this.backlogBytes > 0) this.schedule(options.idleDelayMs);
  }

  /** Called for every logged event: postpones the background pass. Cheap on purpose. */
  noteActivity(): void {
    this.lastActivityMs = performance.now();
  }

  /**
   * Called after bodies were written. Past the backlog limit, slices also run between writes (each
   * in its own turn of the event loop, so forwarding waits for one slice at most).
   */
  noteWritten(bytes: number): void {
    this.backlogBytes += bytes;
    if (this.backlogBytes > this.options.maxBacklogBytes) this.runWhileOverBacklog();
    else if (this.timer === null && this.immediate === null) this.schedule(this.options.idleDelayMs);
  }

  /** Re-reads the backlog after something else deleted bodies (retention). */
  recount(): void {
    this.backlogBytes = unindexedBytes(this.db);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.immediate !== null) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
  }

  private runWhileOverBacklog(): void {
    if (this.immediate !== null || this.closed) return;
    this.immediate = setImmediate(() => {
      this.immediate = null;
      if (this.closed) return;
      try {
        if (this.indexSlice() === 0) return;
      } catch (error) {
        this.options.onError(error);
        return;
      }
      if (this.backlogBytes > this.options.maxBacklogBytes) this.runWhileOverBacklog();
      else if (this.timer === null) this.schedule(this.options.idleDelayMs);
    });
  }

  private indexSlice(): number {
    const { rows, bytes } = indexUnindexedSlice(this.db, this.options.slice);
    this.backlogBytes = rows === 0 ? 0 : Math.max(0, this.backlogBytes - bytes);
    return rows;
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => this.runWhenIdle(), delayMs);
    this.timer.unref();
  }

  private runWhenIdle(): void {
    this.timer = null;
    const quietMs = performance.now() - this.lastActivityMs;
    if (quietMs < this.options.idleDelayMs) {
      this.schedule(this.options.idleDelayMs - quietMs);
      return;
    }
    const startedMs = performance.now();
    try {
      if (this.indexSlice() === 0) return;
    } catch (error) {
      this.options.onError(error);
      return;
    }
    this.schedule((performance.now() - startedMs) * BACKGROUND_GAP_PER_WORK);
  }
}
