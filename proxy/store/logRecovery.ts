import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../core/localPeriods.ts';
import { checkLogFiles, DATABASE_SUFFIXES, diskFullFix, RequestLogUnreadableError, type OpenForCheck } from './logCheck.ts';
import { foreignWalReason } from './foreignWal.ts';
import { importSalvage, REQUEST_FIELD, salvageLogFiles, type LogSalvage } from './logSalvage.ts';
import { LOST_SPEND_MARKER_FILE_NAME, lostSpendMarkerPath, writeLostSpendMarker } from './lostSpendMarker.ts';
import { DATABASE_FILE_NAME, openLogDatabase, type OpenLogDatabaseOptions } from './schema.ts';
import { scanWal, type WalScan } from './sqliteFile.ts';
import { asideName, type AsideKind } from '../core/asideName.ts';

/** A damaged request log that was set aside at start, and what was read back from it. */
export interface LogRecoveryReport {
  /** What was wrong, as the check or SQLite put it. */
  reason: string;
  /** Where the damaged database (or its WAL, without one) is now. */
  movedTo: string;
  recoveredRequests: number;
  recoveredIdempotentAnswers: number;
  /** Credits of the rows read back, since local midnight and since the 1st: what budgets keep counting. */
  recoveredTodayCredits: number;
  recoveredMonthCredits: number;
  /** Why reading back failed as a whole, or null. */
  salvageError: string | null;
  /** All of the above for people: the start output, the status alarm. */
  message: string;
}

/** The log could not be set aside: Airlock cannot start on it, and says which file and what to do. */
export class RequestLogDamagedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestLogDamagedError';
  }
}

interface MovedLog {
  /** New path by suffix, null for a file there was not. */
  moved: Record<string, string | null>;
  shownPath: string;
  companions: string[];
}

/** A name no file of the log's set holds yet. */
function freeAsideName(dataDir: string, nowMs: number, kind: AsideKind = 'damaged'): string {
  // `.db` kept, so SQLite tools open it with its WAL.
  let name = asideName('requests', kind, nowMs, 1, '.db');
  for (let copy = 2; DATABASE_SUFFIXES.some((suffix) => existsSync(join(dataDir, `${name}${suffix}`))); copy += 1)
    name = asideName('requests', kind, nowMs, copy, '.db');
  return name;
}

/** Renames the database and its WAL and shm together (or only those `suffixes`); `shownPath` is the database's new path (or its WAL's, if it had none). */
function moveAside(dataDir: string, name: string, suffixes: readonly string[] = DATABASE_SUFFIXES): MovedLog {
  const moved: Record<string, string | null> = {};
  for (const suffix of suffixes) {
    const from = join(dataDir, `${DATABASE_FILE_NAME}${suffix}`);
    const to = join(dataDir, `${name}${suffix}`);
    if (!existsSync(from)) {
      moved[suffix] = null;
      continue;
    }
    try {
      renameSync(from, to);
    } catch (error) {
      throw new RequestLogDamagedError(
        `The request log ${from} ${suffixes.includes('') ? 'is damaged' : 'belongs to another database'} and could not be moved aside (${(error as Error).message}). ` +
          `Move ${DATABASE_FILE_NAME}, ${DATABASE_FILE_NAME}-wal and ${DATABASE_FILE_NAME}-shm out of ${dataDir} yourself, then start Airlock again: it starts a fresh log.`,
      );
    }
    moved[suffix] = to;
  }
  const shownPath = moved[''] ?? moved['-wal'] ?? join(dataDir, name);
  const companions = DATABASE_SUFFIXES.filter((suffix) => suffix !== '' && moved[suffix] !== null && moved[suffix] !== shownPath);
  return { moved, shownPath, companions };
}

/** Undoes moveAside after the fresh log could not be made: the damaged log is read again at the next start. */
function putBack(dataDir: string, aside: MovedLog, earlierMarker: string | null): void {
  for (const suffix of DATABASE_SUFFIXES) rmSync(join(dataDir, `${DATABASE_FILE_NAME}${suffix}`), { force: true });
  restoreMarker(dataDir, earlierMarker);
  for (const suffix of DATABASE_SUFFIXES) {
    const from = aside.moved[suffix];
    if (from) renameSync(from, join(dataDir, `${DATABASE_FILE_NAME}${suffix}`));
  }
}

function readMarkerText(dataDir: string): string | null {
  try {
    return readFileSync(lostSpendMarkerPath(dataDir), 'utf8');
  } catch {
    return null;
  }
}

/** Puts back the marker an earlier loss left, or none. */
function restoreMarker(dataDir: string, earlierMarker: string | null): void {
  if (earlierMarker === null) rmSync(lostSpendMarkerPath(dataDir), { force: true });
  else writeFileSync(lostSpendMarkerPath(dataDir), earlierMarker, { mode: 0o600 });
}

function creditsText(credits: number): string {
  const shown = Number(credits.toPrecision(6));
  return `${shown} ${shown === 1 ? 'credit' : 'credits'}`;
}

function describe(report: Omit<LogRecoveryReport, 'message'>, companions: readonly string[]): string {
  const beside = companions.length === 0 ? '' : ` (its ${companions.join(' and ')} file${companions.length > 1 ? 's' : ''} beside it)`;
  const found = `The request log ${DATABASE_FILE_NAME} was damaged: ${report.reason}. It was moved to ${report.movedTo}${beside} and a fresh log was started.`;
  if (report.salvageError !== null || report.recoveredRequests === 0) {
    return (
      `${found} No request could be read back from it (${report.salvageError ?? 'none was found in what remains'}), so what was spent before now is unknown: ` +
      `daily and monthly caps are refused until the day or month that holds it ends. To accept the loss now, delete ` +
      `${join(dirname(report.movedTo), LOST_SPEND_MARKER_FILE_NAME)}.`
    );
  }
  const kept =
    `${report.recoveredRequests} requests were read back with their figures, so budgets still count them ` +
    `(today ${creditsText(report.recoveredTodayCredits)}, this month ${creditsText(report.recoveredMonthCredits)})`;
  const answers =
    report.recoveredIdempotentAnswers > 0 ? `, and ${report.recoveredIdempotentAnswers} answers to keyed image or video creations` : '';
  return `${found} ${kept}${answers}. Request bodies were not; they stay in the moved file.`;
}

function spendSince(salvage: LogSalvage, sinceMs: number): number {
  let credits = 0;
  for (const fields of salvage.requests.values()) {
    const cost = fields[REQUEST_FIELD.costCredits];
    if (typeof cost === 'number' && Number(fields[REQUEST_FIELD.startedAtMs]) >= sinceMs) credits += cost;
  }
  return credits;
}

/** How recovery reaches the disk; tests pass ones that fail the way a full disk does. */
export interface LogRecoveryIo {
  openForCheck?: OpenForCheck;
  openFreshLog?: (options: OpenLogDatabaseOptions) => DatabaseSync;
}

/**
 * Run before the log is opened. A sound log is left alone (null). A damaged one (SQLite refuses
 * it, its structure or WAL is broken, or quick_check finds damage) is read back first, then moved
 * aside with its WAL and shm under a timestamped name, and the rows read are written into a fresh
 * log; the report says what happened and where the old file is. A log that cannot be read for
 * any other reason (I/O, full disk), or a fresh log that cannot be made, fails the start and
 * leaves the old log in place, to be read again at the next start. When nothing could be read
 * back, a marker keeps capped budgets refused over the lost spend's day and month; it also
 * stands from the move until the rows read back are committed, should the process die between.
 */
export function recoverDamagedLog(
  dataDir: string,
  nowMs: number = Date.now(),
  io: LogRecoveryIo = {},
  scannedWal: WalScan | null = scanLogWal(dataDir),
): LogRecoveryReport | null {
  const { report: foreign, wal } = setForeignWalAside(dataDir, nowMs, scannedWal);
  const verdict = checkLogFiles(dataDir, DATABASE_FILE_NAME, io.openForCheck, wal);
  if (verdict.sound && verdict.strayWalProblem !== undefined) return setStrayWalAside(dataDir, nowMs, verdict.strayWalProblem);
  if (verdict.sound) return foreign;
  const dbPath = join(dataDir, DATABASE_FILE_NAME);
  let salvage: LogSalvage = { requests: new Map(), idempotentAnswers: new Map() };
  let salvageError: string | null = null;
  try {
    salvage = salvageLogFiles(dbPath, `${dbPath}-wal`, nowMs, wal);
  } catch (error) {
    salvageError = error instanceof Error ? error.message : String(error);
  }
  const asideNameChosen = freeAsideName(dataDir, nowMs);
  // From the move until the rows read back are committed, a kill would leave a sound, empty log
  // and caps passing on it: the marker stands for that spend meanwhile.
  const earlierMarker = readMarkerText(dataDir);
  writeLostSpendMarker(dataDir, nowMs, join(dataDir, asideNameChosen));
  let aside: MovedLog;
  try {
    aside = moveAside(dataDir, asideNameChosen);
  } catch (error) {
    restoreMarker(dataDir, earlierMarker);
    throw error;
  }
  let imported: { requests: number; idempotentAnswers: number };
  try {
    const db = (io.openFreshLog ?? openLogDatabase)({ dataDir });
    try {
      imported = importSalvage(db, salvage);
    } finally {
      db.close();
    }
    // Nothing read back: what the log held is unknown, so caps must not pass on an empty ledger.
    if (salvageError !== null || salvage.requests.size === 0) writeLostSpendMarker(dataDir, nowMs, aside.shownPath);
    else restoreMarker(dataDir, earlierMarker);
  } catch (error) {
    putBack(dataDir, aside, earlierMarker);
    const cause = error instanceof Error ? error.message : String(error);
    throw new RequestLogDamagedError(
      `The request log ${dbPath} is damaged (${verdict.reason}), and a fresh log could not be started beside it: ${cause}. ` +
        `The damaged log was left where it is, so what it holds is read back at the next start. ${diskFullFix(dataDir, error) ?? 'Fix the cause, then start Airlock again.'}`,
    );
  }
  const counted = salvageError === null;
  const report = {
    reason: verdict.reason,
    movedTo: aside.shownPath,
    recoveredRequests: imported.requests,
    recoveredIdempotentAnswers: imported.idempotentAnswers,
    recoveredTodayCredits: counted ? spendSince(salvage, startOfLocalDayMs(nowMs)) : 0,
    recoveredMonthCredits: counted ? spendSince(salvage, startOfLocalMonthMs(nowMs)) : 0,
    salvageError,
  };
  return { ...report, message: [foreign?.message, describe(report, aside.companions)].filter(Boolean).join(' ') };
}

/**
 * The WAL beside the log in `dataDir`, scanned (null: there is none). A start scans it once and
 * hands the scan on (the newer-log look, the foreign-WAL and log checks): after a crash it can be large.
 */
export function scanLogWal(dataDir: string): WalScan | null {
  const dbPath = join(dataDir, DATABASE_FILE_NAME);
  try {
    return existsSync(`${dbPath}-wal`) ? scanWal(`${dbPath}-wal`) : null;
  } catch (error) {
    throw new RequestLogUnreadableError(dbPath, error);
  }
}

/**
 * A WAL written for another database (foreignWal.ts) is moved aside with its shm, unread, before
 * anything opens the log: SQLite would replay it over the log's pages. The log then opens as its
 * file holds it (and is checked as usual); the report says where the WAL went. `wal` is the scan
 * of the WAL left beside the log, for the log check (null: none is).
 */
function setForeignWalAside(
  dataDir: string,
  nowMs: number,
  wal: WalScan | null,
): { report: LogRecoveryReport | null; wal: WalScan | null } {
  const dbPath = join(dataDir, DATABASE_FILE_NAME);
  const walPath = `${dbPath}-wal`;
  let reason: string | null;
  try {
    reason = wal === null ? null : foreignWalReason(dbPath, walPath, wal);
  } catch (error) {
    throw new RequestLogUnreadableError(dbPath, error);
  }
  if (reason === null) return { report: null, wal };
  const report = setWalAside(
    dataDir,
    freeAsideName(dataDir, nowMs, 'foreign'),
    reason,
    (movedTo) =>
      `The write-ahead log beside the request log (${DATABASE_FILE_NAME}-wal) belongs to another database: ${reason}. ` +
      `SQLite would have replayed it over this log's requests, so it was moved, unread, to ${movedTo} and the log opened without it; ` +
      `nothing in it is counted. If it is the WAL of a log copied here, put it back beside that log's ${DATABASE_FILE_NAME} to read it.`,
  );
  return { report, wal: null };
}

/** Moves the WAL and shm alone aside under `name`: nothing of them is read back or counted; `message` says so for people. */
function setWalAside(dataDir: string, name: string, reason: string, message: (movedTo: string) => string): LogRecoveryReport {
  const movedTo = moveAside(dataDir, name, ['-wal', '-shm']).moved['-wal'] as string;
  return {
    reason,
    movedTo,
    recoveredRequests: 0,
    recoveredIdempotentAnswers: 0,
    recoveredTodayCredits: 0,
    recoveredMonthCredits: 0,
    salvageError: null,
    message: message(movedTo),
  };
}

/**
 * A damaged WAL beside a log that is as its last clean close left it: that close left no WAL, so
 * this one holds nothing of the log's (a copy, a sync tool, a disk fault). It is moved aside with
 * its shm, unread, and the log opens whole, its bodies with it: the whole log was moved aside
 * before, so the window lost every body it showed (they stayed in the moved file).
 */
function setStrayWalAside(dataDir: string, nowMs: number, walProblem: string): LogRecoveryReport {
  const reason = `a damaged write-ahead log (${DATABASE_FILE_NAME}-wal) appeared beside it after Airlock last closed it cleanly: ${walProblem}`;
  return setWalAside(
    dataDir,
    freeAsideName(dataDir, nowMs),
    reason,
    (movedTo) =>
      `The request log is whole, but ${reason}. That close left no write-ahead log, so this one holds none of the log's requests: ` +
      `it was moved, unread, to ${movedTo}, and the log opened as it was closed.`,
  );
}
