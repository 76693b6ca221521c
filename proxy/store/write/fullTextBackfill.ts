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

/** A table whose rows wait in a queue table for its full-text index; `stored_bytes` sizes a slice. */
interface IndexedText {
  queue: string;
  table: string;
  key: string;
  index: string;
  columns: readonly string[];
}

/** Bodies (request bodies stored whole, responses, stream text) and the pieces of request bodies (ChunkStore). */
const INDEXED_TEXTS: readonly IndexedText[] = [
  {
    queue: 'request_bodies_unindexed',
    table: 'request_bodies',
    key: 'body_id',
    index: 'request_bodies_fts',
    columns: ['request_body', 'response_body', 'stream_text'],
  },
  { queue: 'body_chunks_unindexed', table: 'body_chunks', key: 'chunk_id', index: 'body_chunks_fts', columns: ['text'] },
];

/**
 * Indexes the oldest unindexed bodies, up to the limits (at least one), in one transaction; once
 * no body waits, the oldest unindexed request body pieces. One INSERT ... SELECT for many rows lets
 * FTS5 build one segment instead of one per row. Returns how many were indexed and their stored bytes.
 */
export function indexUnindexedSlice(db: DatabaseSync, limits: IndexSliceLimits): { rows: number; bytes: number } {
  for (const indexed of INDEXED_TEXTS) {
    const slice = indexSliceOf(db, indexed, limits);
    if (slice.rows > 0) return slice;
  }
  return { rows: 0, bytes: 0 };
}

function indexSliceOf(db: DatabaseSync, indexed: IndexedText, limits: IndexSliceLimits): { rows: number; bytes: number } {
  const { queue, table, key, index, columns } = indexed;
  db.exec('BEGIN IMMEDIATE');
  try {
    const candidates = db
      .prepare(
        `SELECT p.${key} AS id, t.stored_bytes AS storedBytes FROM ${queue} p JOIN ${table} t USING (${key}) ORDER BY p.${key} LIMIT ?`,
      )
      .iterate(limits.maxRows);
    let rows = 0;
    let bytes = 0;
    let lastId = 0;
    for (const candidate of candidates) {
      const storedBytes = Number(candidate.storedBytes);
      if (rows > 0 && bytes + storedBytes > limits.maxBytes) break;
      rows += 1;
      bytes += storedBytes;
      lastId = Number(candidate.id);
    }
    if (rows > 0) {
      const selected = columns.map((column) => `t.${column}`).join(', ');
      db.prepare(
        `INSERT INTO ${index} (rowid, ${columns.join(', ')}) SELECT t.${key}, ${selected} FROM ${queue} p JOIN ${table} t USING (${key}) WHERE p.${key} <= ?`,
      ).run(lastId);
      db.prepare(`DELETE FROM ${queue} WHERE ${key} <= ?`).run(lastId);
    }
    db.exec('COMMIT');
    return { rows, bytes };
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

export function unindexedBytes(db: DatabaseSync): number {
  return INDEXED_TEXTS.reduce(
    (total, { queue, table, key }) =>
      total + Number(db.prepare(`SELECT TOTAL(t.stored_bytes) AS total FROM ${queue} p JOIN ${table} t USING (${key})`).get()?.total ?? 0),
    0,
  );
}

export interface FullTextBackfillOptions {
  /** The log counts as idle once no event arrived for this long; only then the background pass runs. */
  idleDelayMs: number;
  /** Above this many unindexed bytes, indexing also runs while busy: a search scans the unindexed bodies. */
  maxBacklogBytes: number;
  /**
   * A pass starts once this many bytes wait, or after `maxIdleWaitMs` of quiet whatever waits: a
   * slice has a fixed cost of about 1.3 ms (a new index segment and its merging), so indexing each
   * request's bodies alone after every pause cost 1.3 ms a request, against 21-31 us a body in
   * slices of 600-2600 bench bodies. A started pass runs until nothing waits. Searches read
   * unindexed bodies directly, so their results stay complete meanwhile.
   */
  minPassBytes: number;
  maxIdleWaitMs: number;
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
  /** A pass started and has not found the backlog empty yet. */
  private passRunning = false;
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
    const before = this.backlogBytes;
    this.backlogBytes += bytes;
    if (this.backlogBytes > this.options.maxBacklogBytes) this.runWhileOverBacklog();
    else if (this.timer === null && this.immediate === null) this.schedule(this.options.idleDelayMs);
    else if (this.timer !== null && before < this.options.minPassBytes && this.backlogBytes >= this.options.minPassBytes) {
      // Enough waits now: the next quiet spell starts a pass instead of the long wait.
      clearTimeout(this.timer);
      this.schedule(this.options.idleDelayMs);
    }
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
    if (!this.passRunning && this.backlogBytes < this.options.minPassBytes && quietMs < this.options.maxIdleWaitMs) {
      this.schedule(this.options.maxIdleWaitMs - quietMs);
      return;
    }
    this.passRunning = true;
    const startedMs = performance.now();
    try {
      if (this.indexSlice() === 0) {
        this.passRunning = false;
        return;
      }
    } catch (error) {
      this.passRunning = false;
      this.options.onError(error);
      return;
    }
    this.schedule((performance.now() - startedMs) * BACKGROUND_GAP_PER_WORK);
  }
}
