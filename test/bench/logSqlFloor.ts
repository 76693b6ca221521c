/**
 * The least a SQLite request log of a run's rows can cost (issue 20; DESIGN.md, "Why 1.5x the floor
 * cannot be had with a SQLite request log"): the rows, bodies and pieces a logged Airlock wrote are
 * written again, as stored, into a fresh database with Airlock's schema, pragmas and every index
 * (openLogDatabase), with plain INSERTs in one transaction per `rowsPerCommit` requests (what one post
 * of the log thread carries), the bodies and pieces indexed for full-text search in passes of
 * `rowsPerIndexPass` requests, and the WAL copied into the database every `rowsPerCheckpoint`
 * requests and at the end, as the checkpoint thread does. No JavaScript runs per row beyond binding
 * the stored values: what is left is what SQLite itself does for these rows. Measured as this
 * thread's CPU time (getrusage), which the load generator's other work does not touch meanwhile.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { DEFAULT_FLUSH_INTERVAL_MS } from '../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../proxy/store/schema.ts';
import { DEFAULT_CHECKPOINT_INTERVAL_MS } from '../../proxy/store/write/walCheckpointer.ts';
import { C1_RUNS } from './benchSettings.ts';

/** Replays of the c=1 log: the first pays for cold caches (about 1.5x the others), so the median of five. */
const C1_REPLAYS = 5;

export interface LogSqlFloorOptions {
  rowsPerCommit: number;
  rowsPerCheckpoint: number;
  rowsPerIndexPass: number;
  /** Each replay writes a fresh database; the one with the median total is reported. */
  replays: number;
  /** Where the fresh databases are written (and removed after each replay). */
  workDir: string;
  /** Called with each replay's database before it is removed (tests read it). */
  onReplayed?: (databasePath: string) => void;
  /** Changes each fresh database before the rows are written (to price one index: drop it here). */
  prepareDatabase?: (db: DatabaseSync) => void;
}

/** Microseconds of CPU per request row. */
export interface LogSqlParts {
  /** The requests rows and their indexes. */
  requestRows: number;
  /** Bodies, their pieces and the lists that join them. */
  bodies: number;
  commit: number;
  /** Trigram full-text indexing of the bodies and pieces. */
  fullText: number;
  checkpoint: number;
  total: number;
}

export interface LogSqlFloor {
  rows: number;
  commits: number;
  rowsPerCommit: number;
  /** The parts of the replay with the median total. */
  usPerRow: LogSqlParts;
  /** Every replay's total, in order: the first one pays for cold caches. */
  replayTotalsUs: number[];
}

type Row = Record<string, SQLInputValue>;

/** One request as stored: its row, its bodies' row (if kept), its pieces list and references, and the pieces it stored first. */
interface StoredRequest {
  row: Row;
  body: Row | undefined;
  chunkList: Row | undefined;
  chunkRefs: Row[];
  newChunks: Row[];
}

function readStoredRequests(sourcePath: string): StoredRequest[] {
  const source = new DatabaseSync(sourcePath, { readOnly: true });
  try {
    const bodyOf = source.prepare('SELECT * FROM request_bodies WHERE request_id = ?');
    const chunkListOf = source.prepare('SELECT * FROM request_body_chunk_lists WHERE body_id = ?');
    const chunkRefsOf = source.prepare('SELECT * FROM request_body_chunks WHERE body_id = ?');
    const chunkOf = source.prepare('SELECT * FROM body_chunks WHERE chunk_id = ?');
    const seenChunks = new Set<number>();
    return source
      .prepare('SELECT * FROM requests ORDER BY started_at_ms, id')
      .all()
      .map((row) => {
        const body = bodyOf.get(row.id as string);
        const bodyId = body?.body_id as number | undefined;
        const chunkRefs = bodyId === undefined ? [] : chunkRefsOf.all(bodyId);
        const newChunks: Row[] = [];
        for (const ref of chunkRefs) {
          const chunkId = Number(ref.chunk_id);
          if (seenChunks.has(chunkId)) continue;
          seenChunks.add(chunkId);
          const chunk = chunkOf.get(chunkId);
          if (chunk !== undefined) newChunks.push(chunk);
        }
        return { row, body, chunkList: bodyId === undefined ? undefined : chunkListOf.get(bodyId), chunkRefs, newChunks };
      });
  } finally {
    source.close();
  }
}

const cpuUs = (): number => {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
};

/** Plain INSERTs of stored rows into `table`, one statement per set of columns. */
function inserter(db: DatabaseSync, table: string): (row: Row) => void {
  let statement: StatementSync | null = null;
  return (row) => {
    const columns = Object.keys(row);
    statement ??= db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    statement.run(...Object.values(row));
  };
}

const maxOf = (ids: number[], start: number): number => ids.reduce((max, id) => Math.max(max, id), start);

function replay(requests: readonly StoredRequest[], options: LogSqlFloorOptions, dataDir: string): LogSqlParts {
  const db = openLogDatabase({ dataDir });
  const cpu = { requestRows: 0, bodies: 0, commit: 0, fullText: 0, checkpoint: 0 };
  try {
    // As while the checkpoint thread runs: the writing connection never checkpoints itself.
    db.exec('PRAGMA wal_autocheckpoint = 0');
    options.prepareDatabase?.(db);
    const insert = {
      row: inserter(db, 'requests'),
      body: inserter(db, 'request_bodies'),
      chunk: inserter(db, 'body_chunks'),
      chunkList: inserter(db, 'request_body_chunk_lists'),
      chunkRef: inserter(db, 'request_body_chunks'),
    };
    // Texts are indexed in id ranges, as the full-text backfill indexes what waits in one INSERT ... SELECT.
    const indexBodies = db.prepare(
      'INSERT INTO request_bodies_fts (rowid, request_body, response_body, stream_text) SELECT body_id, request_body, response_body, stream_text FROM request_bodies WHERE body_id > ? AND body_id <= ?',
    );
    const indexChunks = db.prepare(
      'INSERT INTO body_chunks_fts (rowid, text) SELECT chunk_id, text FROM body_chunks WHERE chunk_id > ? AND chunk_id <= ?',
    );
    const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    const indexed = { body: 0, chunk: 0 };
    const written = { body: 0, chunk: 0 };
    const indexPass = (): void => {
      const startUs = cpuUs();
      db.exec('BEGIN IMMEDIATE');
      indexBodies.run(indexed.body, written.body);
      indexChunks.run(indexed.chunk, written.chunk);
      db.exec('COMMIT');
      cpu.fullText += cpuUs() - startUs;
      indexed.body = written.body;
      indexed.chunk = written.chunk;
    };
    const checkpointNow = (): void => {
      const startUs = cpuUs();
      checkpoint.get();
      cpu.checkpoint += cpuUs() - startUs;
    };
    let sinceIndexPass = 0;
    let sinceCheckpoint = 0;
    for (let start = 0; start < requests.length; start += options.rowsPerCommit) {
      const batch = requests.slice(start, start + options.rowsPerCommit);
      let markUs = cpuUs();
      db.exec('BEGIN IMMEDIATE');
      for (const { row } of batch) insert.row(row);
      let nowUs = cpuUs();
      cpu.requestRows += nowUs - markUs;
      markUs = nowUs;
      for (const { body, chunkList, chunkRefs, newChunks } of batch) {
        for (const chunk of newChunks) insert.chunk(chunk);
        if (body !== undefined) insert.body(body);
        if (chunkList !== undefined) insert.chunkList(chunkList);
        for (const ref of chunkRefs) insert.chunkRef(ref);
      }
      nowUs = cpuUs();
      cpu.bodies += nowUs - markUs;
      markUs = nowUs;
      db.exec('COMMIT');
      cpu.commit += cpuUs() - markUs;
      written.body = maxOf(
        batch.flatMap(({ body }) => (body === undefined ? [] : [Number(body.body_id)])),
        written.body,
      );
      written.chunk = maxOf(
        batch.flatMap(({ newChunks }) => newChunks.map((chunk) => Number(chunk.chunk_id))),
        written.chunk,
      );
      sinceIndexPass += batch.length;
      sinceCheckpoint += batch.length;
      if (sinceIndexPass >= options.rowsPerIndexPass) {
        indexPass();
        sinceIndexPass = 0;
      }
      if (sinceCheckpoint >= options.rowsPerCheckpoint) {
        checkpointNow();
        sinceCheckpoint = 0;
      }
    }
    if (sinceIndexPass > 0) indexPass();
    checkpointNow();
  } finally {
    db.close();
  }
  const perRow = (us: number): number => us / Math.max(1, requests.length);
  const parts = {
    requestRows: perRow(cpu.requestRows),
    bodies: perRow(cpu.bodies),
    commit: perRow(cpu.commit),
    fullText: perRow(cpu.fullText),
    checkpoint: perRow(cpu.checkpoint),
  };
  return { ...parts, total: parts.requestRows + parts.bodies + parts.commit + parts.fullText + parts.checkpoint };
}

/** Replays the log at `sourcePath` (a logged Airlock's requests.db) `options.replays` times; see the module's comment. */
export function measureLogSqlFloor(sourcePath: string, options: LogSqlFloorOptions): LogSqlFloor {
  const requests = readStoredRequests(sourcePath);
  const replays: LogSqlParts[] = [];
  for (let index = 0; index < options.replays; index += 1) {
    const dataDir = join(options.workDir, `replay-${index}`);
    mkdirSync(dataDir, { recursive: true });
    try {
      replays.push(replay(requests, options, dataDir));
      options.onReplayed?.(join(dataDir, DATABASE_FILE_NAME));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const byTotal = [...replays].sort((a, b) => a.total - b.total);
  const median = byTotal[Math.floor((byTotal.length - 1) / 2)];
  if (median === undefined) throw new Error('measureLogSqlFloor needs at least one replay');
  return {
    rows: requests.length,
    commits: Math.ceil(requests.length / options.rowsPerCommit),
    rowsPerCommit: options.rowsPerCommit,
    usPerRow: median,
    replayTotalsUs: replays.map((parts) => parts.total),
  };
}

/**
 * The bench's c=1 runs' log (in `logDir`, the logged Airlock's data directory), replayed as those
 * runs wrote it: a commit per post of the log thread at their rate (DEFAULT_FLUSH_INTERVAL_MS), a
 * checkpoint per the checkpoint thread's interval, a full-text pass per run (the log indexes once a
 * run's bodies wait and it has gone idle). Or why it could not be measured.
 */
export function logSqlFloorAtC1(logDir: string, requestsPerSecond: number): LogSqlFloor | string {
  const workDir = mkdtempSync(join(tmpdir(), 'airlock-bench-sql-floor-'));
  try {
    return measureLogSqlFloor(join(logDir, DATABASE_FILE_NAME), {
      rowsPerCommit: Math.max(1, Math.round((requestsPerSecond * DEFAULT_FLUSH_INTERVAL_MS) / 1000)),
      rowsPerCheckpoint: Math.max(1, Math.round((requestsPerSecond * DEFAULT_CHECKPOINT_INTERVAL_MS) / 1000)),
      rowsPerIndexPass: C1_RUNS.count,
      replays: C1_REPLAYS,
      workDir,
    });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
