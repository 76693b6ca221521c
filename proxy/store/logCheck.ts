import { existsSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DB_HEADER_BYTES, parseDbHeader, readFileBytesAt, scanWal, type WalScan } from './sqliteFile.ts';

/**
 * Whether the request log can be opened as it is. Cheap checks run at every start: the header,
 * the file's length against the pages the header states, and the WAL's checksums (SQLite drops a
 * damaged WAL's commits without a word). SQLite's `PRAGMA quick_check` reads every page: 0.4 s
 * on a warm 380 MB log and 1.0-1.6 s from a cold disk, against about 40 ms for the whole start,
 * so it runs only when the file may have changed since Airlock last closed it cleanly: after a
 * crash, a kill or a power cut, or a write by something else. A clean close records the file's
 * size and modification time for that.
 */
export const DATABASE_SUFFIXES = ['', '-wal', '-shm'] as const;
export const CLEAN_CLOSE_FILE_NAME = 'requests-closed.json';
/** Lines of quick_check's findings kept for the message. */
const REPORTED_FINDINGS = 3;

const SQLITE_IOERR = 10;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_NOTADB = 26;

/** What restarting does for a damaged log, the fix every message about one gives (free disk space would not help). */
export const RESTART_FOR_DAMAGED_LOG = 'Restart Airlock: the start checks the log, moves a damaged one aside and reads its requests back';

/** SQLite found the file damaged. Errors from the log thread arrive as plain Errors: their message tells. */
export function isDamageError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const errcode = (error as { errcode?: unknown }).errcode;
  return (
    errcode === SQLITE_CORRUPT || errcode === SQLITE_NOTADB || /database disk image is malformed|file is not a database/.test(error.message)
  );
}

/**
 * Below this much free space an I/O error is taken for a full disk: SQLite reports one that cannot
 * make its shared-memory file as "disk I/O error", not as full.
 */
const NEARLY_FULL_BYTES = 1024 * 1024;

function freeBytes(dir: string): number {
  try {
    const stats = statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The fix to name when `cause` is a full disk under `dataDir`, else null. */
export function diskFullFix(dataDir: string, cause: unknown): string | null {
  const message = cause instanceof Error ? cause.message : String(cause);
  const errcode = (cause as { errcode?: unknown } | null)?.errcode;
  // node:sqlite gives extended codes: the primary code is the low byte.
  const primary = typeof errcode === 'number' ? errcode & 0xff : null;
  const code = (cause as { code?: unknown } | null)?.code;
  const diskFull =
    primary === SQLITE_FULL ||
    code === 'ENOSPC' ||
    /disk is full|no space left/i.test(message) ||
    (primary === SQLITE_IOERR && freeBytes(dataDir) < NEARLY_FULL_BYTES);
  return diskFull ? `The disk holding ${dataDir} is full: free space there, then start Airlock again.` : null;
}

/**
 * The log could not be read at all (I/O error, full disk, permissions): that says nothing about
 * damage, so nothing is moved aside and the start fails, naming the file and the cause.
 */
export class RequestLogUnreadableError extends Error {
  /** `said` replaces the message built from the cause where the cause and fix are known better. */
  constructor(path: string, cause: unknown, said?: string) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const fix =
      diskFullFix(dirname(path), cause) ??
      `Nothing was moved or changed: fix what stops ${path} from being read (its permissions, the disk), then start Airlock again.`;
    super(said ?? `Airlock could not read its request log ${path}: ${message}. ${fix}`);
    this.name = 'RequestLogUnreadableError';
  }

  /** A directory (a sync tool's conflict, a mistaken mkdir) where the log file belongs. */
  static directoryInPlace(path: string): RequestLogUnreadableError {
    return new RequestLogUnreadableError(
      path,
      'it is a directory',
      `${path} is a directory, not the request log file: move it out of ${dirname(path)} (or delete it), then start Airlock again; it starts a fresh log.`,
    );
  }
}

/** Opens the log for its quick check; tests pass one that fails the way a disk can. */
export type OpenForCheck = (path: string) => DatabaseSync;
const openForCheck: OpenForCheck = (path) => new DatabaseSync(path);

export type LogVerdict =
  | {
      sound: true;
      quickCheckMs: number | null;
      /**
       * Set when the log is as its last clean close left it and a damaged WAL appeared beside it since:
       * that close left none, so the WAL holds nothing of this log's and is set aside alone (why, in words).
       */
      strayWalProblem?: string;
    }
  | { sound: false; reason: string };

interface CleanCloseRecord {
  sizeBytes: number;
  mtimeNs: string;
}

function fileStamp(path: string): CleanCloseRecord | null {
  try {
    const stats = statSync(path, { bigint: true });
    return { sizeBytes: Number(stats.size), mtimeNs: String(stats.mtimeNs) };
  } catch {
    return null;
  }
}

/** After the last connection closed (no WAL left): the file as Airlock left it. */
export function recordCleanClose(dataDir: string, databaseFileName: string): void {
  const stamp = fileStamp(join(dataDir, databaseFileName));
  if (stamp === null || existsSync(join(dataDir, `${databaseFileName}-wal`))) return;
  writeFileSync(join(dataDir, CLEAN_CLOSE_FILE_NAME), JSON.stringify(stamp), { mode: 0o600 });
}

/** Reads and removes the record, so a run that does not close cleanly leaves none for the next start. */
function takeCleanClose(dataDir: string): CleanCloseRecord | null {
  const file = join(dataDir, CLEAN_CLOSE_FILE_NAME);
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CleanCloseRecord>;
    return typeof parsed.sizeBytes === 'number' && typeof parsed.mtimeNs === 'string'
      ? { sizeBytes: parsed.sizeBytes, mtimeNs: parsed.mtimeNs }
      : null;
  } catch {
    return null;
  } finally {
    rmSync(file, { force: true });
  }
}

export function readHeaderBytes(path: string): Buffer {
  return readFileBytesAt(path, 0, DB_HEADER_BYTES);
}

function structuralProblem(dbPath: string, walPath: string): string | null {
  const sizeBytes = statSync(dbPath).size;
  if (sizeBytes === 0) return 'it is empty (0 bytes)';
  const header = parseDbHeader(readHeaderBytes(dbPath));
  if ('problem' in header) return header.problem;
  if (sizeBytes % header.pageSizeBytes !== 0) return `it was cut short in the middle of a page (${sizeBytes} bytes remain)`;
  const walHoldsPages = existsSync(walPath) && statSync(walPath).size > 0;
  // With a WAL the header may lag the pages the log holds: quick_check judges that case.
  if (!walHoldsPages && header.pageCount !== null && sizeBytes < header.pageCount * header.pageSizeBytes) {
    return `it was cut short (${sizeBytes} of its ${header.pageCount * header.pageSizeBytes} bytes remain)`;
  }
  return null;
}

function quickCheckFindings(dbPath: string, open: OpenForCheck): string | null {
  let db: DatabaseSync | null = null;
  try {
    db = open(dbPath);
    const findings = db
      .prepare('PRAGMA quick_check')
      .all()
      .map((row) => String(Object.values(row)[0]));
    if (findings.length === 1 && findings[0] === 'ok') return null;
    return `SQLite's quick check found: ${findings.slice(0, REPORTED_FINDINGS).join('; ')}`;
  } catch (error) {
    if (!isDamageError(error)) throw new RequestLogUnreadableError(dbPath, error);
    return `SQLite reports "${error instanceof Error ? error.message : String(error)}"`;
  } finally {
    db?.close();
  }
}

/**
 * Judges `<dataDir>/<databaseFileName>` and its WAL before anything opens them. Only damage makes
 * a verdict; any other failure to read them throws RequestLogUnreadableError. `scannedWal` is the
 * WAL as the caller already scanned it, so a large one a crash left is read once per start.
 */
export function checkLogFiles(
  dataDir: string,
  databaseFileName: string,
  open: OpenForCheck = openForCheck,
  scannedWal: WalScan | null = null,
): LogVerdict {
  const dbPath = join(dataDir, databaseFileName);
  try {
    return judgeLogFiles(dataDir, databaseFileName, dbPath, open, scannedWal);
  } catch (error) {
    if (error instanceof RequestLogUnreadableError) throw error;
    throw new RequestLogUnreadableError(dbPath, error);
  }
}

function judgeLogFiles(
  dataDir: string,
  databaseFileName: string,
  dbPath: string,
  open: OpenForCheck,
  scannedWal: WalScan | null,
): LogVerdict {
  const walPath = `${dbPath}-wal`;
  const cleanClose = takeCleanClose(dataDir);
  if (!existsSync(dbPath)) {
    // Without its database a WAL cannot be replayed: what it holds is read back from its frames.
    return existsSync(walPath) && statSync(walPath).size > 0
      ? { sound: false, reason: `${databaseFileName} is missing but its WAL is not` }
      : { sound: true, quickCheckMs: null };
  }
  if (statSync(dbPath).isDirectory()) throw RequestLogUnreadableError.directoryInPlace(dbPath);
  const structural = structuralProblem(dbPath, walPath);
  if (structural !== null) return { sound: false, reason: structural };
  const stamp = fileStamp(dbPath);
  const asClosed = cleanClose !== null && stamp?.sizeBytes === cleanClose.sizeBytes && stamp.mtimeNs === cleanClose.mtimeNs;
  if (existsSync(walPath)) {
    const walProblem = (scannedWal ?? scanWal(walPath)).problem;
    if (walProblem !== null && asClosed) return { sound: true, quickCheckMs: null, strayWalProblem: walProblem };
    if (walProblem !== null) return { sound: false, reason: `its write-ahead log (${databaseFileName}-wal) is damaged: ${walProblem}` };
  }
  if (asClosed && !existsSync(walPath)) return { sound: true, quickCheckMs: null };
  const startedAt = performance.now();
  const findings = quickCheckFindings(dbPath, open);
  if (findings !== null) return { sound: false, reason: findings };
  return { sound: true, quickCheckMs: performance.now() - startedAt };
}
