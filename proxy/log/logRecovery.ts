import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../budget/spendLedger.ts';
import { checkLogFiles, DATABASE_SUFFIXES } from './logCheck.ts';
import { importSalvage, salvageLogFiles, type LogSalvage } from './logSalvage.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from './schema.ts';

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

/** `requests-damaged-20250102T030405Z.db`: the time in the name, `.db` kept so SQLite tools open it with its WAL. */
function asideName(nowMs: number, attempt: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `requests-damaged-${stamp}${attempt === 0 ? '' : `-${attempt + 1}`}.db`;
}

/** Renames the database and its WAL and shm together; returns the database's new path (or its WAL's, if it had none). */
function moveAside(
  dataDir: string,
  nowMs: number,
): { dbPath: string | null; walPath: string | null; shownPath: string; companions: string[] } {
  let name = asideName(nowMs, 0);
  for (let attempt = 1; DATABASE_SUFFIXES.some((suffix) => existsSync(join(dataDir, `${name}${suffix}`))); attempt += 1)
    name = asideName(nowMs, attempt);
  const moved: Record<string, string | null> = {};
  for (const suffix of DATABASE_SUFFIXES) {
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
        `The request log ${from} is damaged and could not be moved aside (${(error as Error).message}). ` +
          `Move ${DATABASE_FILE_NAME}, ${DATABASE_FILE_NAME}-wal and ${DATABASE_FILE_NAME}-shm out of ${dataDir} yourself, then start Airlock again: it starts a fresh log.`,
      );
    }
    moved[suffix] = to;
  }
  const dbPath = moved[''] ?? null;
  const walPath = moved['-wal'] ?? null;
  const shownPath = dbPath ?? walPath ?? join(dataDir, name);
  const companions = DATABASE_SUFFIXES.filter((suffix) => suffix !== '' && moved[suffix] !== null && moved[suffix] !== shownPath);
  return { dbPath, walPath, shownPath, companions };
}

function creditsText(credits: number): string {
  const shown = Number(credits.toPrecision(6));
  return `${shown} ${shown === 1 ? 'credit' : 'credits'}`;
}

function describe(report: Omit<LogRecoveryReport, 'message'>, companions: readonly string[]): string {
  const beside = companions.length === 0 ? '' : ` (its ${companions.join(' and ')} file${companions.length > 1 ? 's' : ''} beside it)`;
  const found = `The request log ${DATABASE_FILE_NAME} was damaged: ${report.reason}. It was moved to ${report.movedTo}${beside} and a fresh log was started.`;
  if (report.salvageError !== null) {
    return `${found} No request could be read back from it (${report.salvageError}): spend before now is not counted against budgets, so check them.`;
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
    const cost = fields[26];
    if (typeof cost === 'number' && Number(fields[2]) >= sinceMs) credits += cost;
  }
  return credits;
}

/**
 * Run before the log is opened. A sound log is left alone (null). A damaged one (SQLite refuses
 * it, its structure or WAL is broken, or quick_check finds damage) is moved aside with its WAL
 * and shm under a timestamped name, the rows that can still be read are written into a fresh
 * log, and the report says what happened and where the old file is.
 */
export function recoverDamagedLog(dataDir: string, nowMs: number = Date.now()): LogRecoveryReport | null {
  const verdict = checkLogFiles(dataDir, DATABASE_FILE_NAME);
  if (verdict.sound) return null;
  const moved = moveAside(dataDir, nowMs);
  let salvage: LogSalvage = { requests: new Map(), idempotentAnswers: new Map() };
  let salvageError: string | null = null;
  try {
    salvage = salvageLogFiles(moved.dbPath, moved.walPath, nowMs);
  } catch (error) {
    salvageError = error instanceof Error ? error.message : String(error);
  }
  const db = openLogDatabase({ dataDir });
  let imported = { requests: 0, idempotentAnswers: 0 };
  try {
    imported = importSalvage(db, salvage);
  } catch (error) {
    salvageError ??= error instanceof Error ? error.message : String(error);
  } finally {
    db.close();
  }
  const counted = salvageError === null;
  const report = {
    reason: verdict.reason,
    movedTo: moved.shownPath,
    recoveredRequests: imported.requests,
    recoveredIdempotentAnswers: imported.idempotentAnswers,
    recoveredTodayCredits: counted ? spendSince(salvage, startOfLocalDayMs(nowMs)) : 0,
    recoveredMonthCredits: counted ? spendSince(salvage, startOfLocalMonthMs(nowMs)) : 0,
    salvageError,
  };
  return { ...report, message: describe(report, moved.companions) };
}
