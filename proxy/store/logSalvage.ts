import { existsSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { readHeaderBytes } from './logCheck.ts';
import { leafRecords, PageSource, parseDbHeader, scanWal, type FileValue, type RecordFields, type WalScan } from './sqliteFile.ts';

/**
 * What can be read back from a damaged request log: the `requests` rows (every figure budgets
 * count) and the `idempotent_answers` entries (so a keyed creation is still never sent twice).
 * Bodies are not salvaged: they stay in the moved file.
 *
 * Every table leaf page there is gets read, the file's and the WAL's, stale images included, and
 * a row found in several versions keeps its most complete one. A row deleted by retention may so
 * come back: that errs towards counting more spend, never less.
 */
export interface LogSalvage {
  /** Fields in the table's column order, by request id. */
  requests: Map<string, RecordFields>;
  /** Fields in the table's column order, by profile and key hash. */
  idempotentAnswers: Map<string, RecordFields>;
}

/** Columns of migration 1, which later migrations may only append to. */
const REQUEST_FIELD_COUNT = 29;
export const REQUEST_FIELD = {
  id: 0,
  startedAtMs: 2,
  method: 7,
  clientPath: 8,
  upstreamPath: 9,
  protocol: 10,
  protocolMode: 11,
  notes: 17,
  retries: 21,
  costCredits: 26,
  usageSource: 27,
  state: 28,
} as const;
const PROTOCOLS = new Set(['openai', 'anthropic', 'responses']);
const REQUEST_STATES = new Set(['in_flight', 'done', 'interrupted']);
const ANSWER_FIELD_COUNT = 8;
const ANSWER_STATES = new Set(['in_flight', 'answered', 'not_kept']);
const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;
/** Requests started before 2020 or more than a day ahead are garbage that happened to parse. */
const EARLIEST_PLAUSIBLE_MS = Date.UTC(2020, 0, 1);
const DAY_MS = 86_400_000;

const isText = (value: FileValue | undefined): value is string => typeof value === 'string';
const isInteger = (value: FileValue | undefined): boolean =>
  typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
const isOptionalInteger = (value: FileValue | undefined): boolean => value === null || isInteger(value);

function isRequestRecord(fields: RecordFields, nowMs: number): boolean {
  if (fields.length < REQUEST_FIELD_COUNT) return false;
  const f = REQUEST_FIELD;
  const startedAtMs = fields[f.startedAtMs];
  const cost = fields[f.costCredits];
  return (
    isText(fields[f.id]) &&
    fields[f.id] !== '' &&
    typeof startedAtMs === 'number' &&
    startedAtMs >= EARLIEST_PLAUSIBLE_MS &&
    startedAtMs <= nowMs + DAY_MS &&
    isText(fields[f.method]) &&
    isText(fields[f.clientPath]) &&
    isText(fields[f.upstreamPath]) &&
    PROTOCOLS.has(fields[f.protocol] as string) &&
    isText(fields[f.protocolMode]) &&
    isText(fields[f.notes]) &&
    isInteger(fields[f.retries]) &&
    (cost === null || (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0)) &&
    (fields[f.usageSource] === null || fields[f.usageSource] === 'reported' || fields[f.usageSource] === 'estimated') &&
    REQUEST_STATES.has(fields[f.state] as string) &&
    [3, 4].every((index) => fields[index] === null || typeof fields[index] === 'number') &&
    [18, 22, 23, 24, 25].every((index) => isOptionalInteger(fields[index]))
  );
}

/** A version with the request's end beats one written while it ran; then the one with its cost. */
function requestCompleteness(fields: RecordFields): number {
  const ended = fields[REQUEST_FIELD.state] === 'in_flight' ? 0 : 2;
  return ended + (fields[REQUEST_FIELD.costCredits] === null ? 0 : 1);
}

function isAnswerRecord(fields: RecordFields): boolean {
  return (
    fields.length >= ANSWER_FIELD_COUNT &&
    isText(fields[0]) &&
    isText(fields[1]) &&
    KEY_HASH_PATTERN.test(fields[1]) &&
    isText(fields[2]) &&
    isInteger(fields[3]) &&
    ANSWER_STATES.has(fields[4] as string)
  );
}

/**
 * An answer is replayed byte for byte, so one is kept only whole: headers that parse, a body read
 * to its end (and that parses when it says it is JSON). Otherwise the entry becomes `not_kept`,
 * whose repeat is refused, never resent.
 */
function soundAnswer(fields: RecordFields): RecordFields {
  if (fields[4] !== 'answered') return fields;
  const headers = fields[6];
  const body = fields[7];
  try {
    const parsed = JSON.parse(String(headers)) as Record<string, unknown>;
    if (!(body instanceof Uint8Array)) throw new Error('body missing');
    const contentType = parsed['content-type'];
    if (typeof contentType === 'string' && contentType.includes('json')) JSON.parse(Buffer.from(body).toString('utf8'));
    return fields;
  } catch {
    return [...fields.slice(0, 4), 'not_kept', fields[5] ?? null, null, null];
  }
}

const ANSWER_STATE_RANK: Record<string, number> = { in_flight: 0, not_kept: 1, answered: 2 };

/** The newest entry for a key wins (a key may be used again after its window); then its settled version. */
function answerIsBetter(candidate: RecordFields, current: RecordFields): boolean {
  const createdDelta = Number(candidate[3]) - Number(current[3]);
  if (createdDelta !== 0) return createdDelta > 0;
  return (ANSWER_STATE_RANK[candidate[4] as string] ?? 0) > (ANSWER_STATE_RANK[current[4] as string] ?? 0);
}

/** Node's SQLite writes 4096-byte pages unless told otherwise; used when no header says. */
const DEFAULT_PAGE_BYTES = 4096;

/**
 * Reads every row it can from `dbPath` and its WAL (either may be missing or damaged);
 * `scannedWal` is the WAL as the start check already scanned it.
 */
export function salvageLogFiles(
  dbPath: string | null,
  walPath: string | null,
  nowMs: number,
  scannedWal: WalScan | null = null,
): LogSalvage {
  const salvage: LogSalvage = { requests: new Map(), idempotentAnswers: new Map() };
  const db = dbPath !== null && existsSync(dbPath) ? dbPath : null;
  const walFile = walPath !== null && existsSync(walPath) ? walPath : null;
  const wal: WalScan | null = walFile === null ? null : (scannedWal ?? scanWal(walFile));
  const header = db === null ? null : parseDbHeader(readHeaderBytes(db));
  const fromHeader = header !== null && !('problem' in header) ? header : null;
  const pageSizeBytes = fromHeader?.pageSizeBytes ?? wal?.pageSizeBytes ?? DEFAULT_PAGE_BYTES;
  const pages = new PageSource({ dbPath: db, walPath: walFile, wal, pageSizeBytes, reservedBytes: fromHeader?.reservedBytes ?? 0 });
  try {
    for (const { pageNumber, image } of pages.images()) {
      for (const fields of leafRecords(pageNumber, image, pages)) collect(salvage, fields, nowMs);
    }
  } finally {
    pages.close();
  }
  return salvage;
}

function collect(salvage: LogSalvage, fields: RecordFields, nowMs: number): void {
  if (isRequestRecord(fields, nowMs)) {
    const id = fields[REQUEST_FIELD.id] as string;
    const current = salvage.requests.get(id);
    if (current === undefined || requestCompleteness(fields) > requestCompleteness(current)) salvage.requests.set(id, fields);
    return;
  }
  if (isAnswerRecord(fields)) {
    const answer = soundAnswer(fields);
    const key = `${String(answer[0])}\u0000${String(answer[1])}`;
    const current = salvage.idempotentAnswers.get(key);
    if (current === undefined || answerIsBetter(answer, current)) salvage.idempotentAnswers.set(key, answer);
  }
}

function columnsOf(db: DatabaseSync, table: string): string[] {
  return db
    .prepare(`PRAGMA table_info(${table})`)
    .all()
    .map((column) => String(column.name));
}

function insertAll(db: DatabaseSync, table: string, records: Iterable<RecordFields>): number {
  const columns = columnsOf(db, table);
  const statements = new Map<number, ReturnType<DatabaseSync['prepare']>>();
  let inserted = 0;
  for (const fields of records) {
    // A file of an older schema has fewer columns; the ones added since take their defaults.
    const count = Math.min(fields.length, columns.length);
    let statement = statements.get(count);
    if (statement === undefined) {
      const names = columns.slice(0, count);
      statement = db.prepare(`INSERT OR IGNORE INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
      statements.set(count, statement);
    }
    const values = fields.slice(0, count).map((value) => (value === undefined ? null : value));
    inserted += Number(statement.run(...values).changes);
  }
  return inserted;
}

/** Writes the salvaged rows into a fresh log database, in one transaction. */
export function importSalvage(db: DatabaseSync, salvage: LogSalvage): { requests: number; idempotentAnswers: number } {
  db.exec('BEGIN IMMEDIATE');
  try {
    const requests = insertAll(db, 'requests', salvage.requests.values());
    const idempotentAnswers = insertAll(db, 'idempotent_answers', salvage.idempotentAnswers.values());
    db.exec('COMMIT');
    return { requests, idempotentAnswers };
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
