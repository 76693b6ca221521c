import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { CLEAN_CLOSE_FILE_NAME, diskFullFix } from './logCheck.ts';
import { recoverDamagedLog } from './logRecovery.ts';
import { LOST_SPEND_MARKER_FILE_NAME } from './lostSpendMarker.ts';
import { DATABASE_FILE_NAME, NewerLogError, openLogDatabase } from './schema.ts';
import { DAMAGED_SPEND_FILE_NAME } from './write/unwrittenMirror.ts';
import {
  SPACE_RESERVE_FILE_NAME,
  UNSAVED_LOST_FILE_NAME,
  UNSAVED_SPEND_FILE_NAME,
  UNWRITTEN_SPEND_FILE_NAME,
} from './write/unwrittenSpendFile.ts';

/** Spend the run-only log could not hold (a full disk, damage): this log reads each at its open, as its own. */
export const SPEND_RECORDS = [
  UNWRITTEN_SPEND_FILE_NAME,
  UNSAVED_SPEND_FILE_NAME,
  UNSAVED_LOST_FILE_NAME,
  DAMAGED_SPEND_FILE_NAME,
  LOST_SPEND_MARKER_FILE_NAME,
];
/** What a log's folder holds of the log itself: the folder goes with these only. */
const LOG_FILES = new Set([
  DATABASE_FILE_NAME,
  `${DATABASE_FILE_NAME}-wal`,
  `${DATABASE_FILE_NAME}-shm`,
  CLEAN_CLOSE_FILE_NAME,
  SPACE_RESERVE_FILE_NAME,
]);

export interface FoldedRunOnlyLog {
  requests: number;
  costCredits: number;
  /** That log was damaged and set aside in its folder first (logRecovery.ts): what was read back, for people; else null. */
  recoveryMessage: string | null;
}

/**
 * Requests an older Airlock logged apart, in `runOnlyDir`, while this log was too new for it (a
 * roll-back: app/runOnlyLog.ts), join this log, so the budgets count their spend after the update
 * back, and a keyed image or video creation made then is answered once, not bought again (its
 * idempotent answer). Rows only (their bodies are not copied), each once: an id already here is skipped, so a fold
 * cut short is done again whole at the next start, and the folder goes once its rows are in. Its
 * records of spend it could not write move beside this log, which counts them at its open. Run
 * before the log opens, which also marks a row left in flight interrupted. Null when there is none.
 */
export function foldRunOnlyLog(dataDir: string, runOnlyDir: string, openLog: OpenLog = openLogDatabase): FoldedRunOnlyLog | null {
  if (!existsSync(join(runOnlyDir, DATABASE_FILE_NAME))) return null;
  try {
    return foldInto(dataDir, runOnlyDir, openLog);
  } catch (error) {
    // A nested fold's failure (foldNestedRunOnlyLog) is said already, naming its own folder.
    if (error instanceof NewerLogError || error instanceof RunOnlyFoldError) throw error;
    throw new RunOnlyFoldError(dataDir, runOnlyDir, error);
  }
}

/** Opens a log database (tests give one that fails as a full disk does). */
type OpenLog = (options: { dataDir: string }) => DatabaseSync;

/**
 * The fold failed (a full disk, a damaged file, permissions): SQLite's bare message ("database or
 * disk is full") named neither what Airlock was doing nor that nothing was lost. The fold is one
 * transaction and the folder stays until its rows are in, so the next start does it again whole.
 */
export class RunOnlyFoldError extends Error {
  constructor(dataDir: string, runOnlyDir: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const fix = diskFullFix(dataDir, cause) ?? 'Fix the cause, then start Airlock again.';
    super(
      `Airlock could not add the requests it logged while rolled back to an older version (${runOnlyDir}) to its request log: ${message}. ${fix} Nothing was lost: that folder is kept and added at the next start.`,
      { cause },
    );
    this.name = 'RunOnlyFoldError';
  }
}

function foldInto(dataDir: string, runOnlyDir: string, openLog: OpenLog): FoldedRunOnlyLog {
  // A crash or a disk fault may have damaged it like any log: opened as it is, it failed every start
  // after the update. Its rows are read back into a fresh one, the damaged file stays in the folder
  // (which keeps it), and where nothing could be read the lost-spend marker moves beside this log below.
  const recovery = recoverDamagedLog(runOnlyDir);
  // A second roll-back in a row logged apart inside this folder (app/runOnlyLog.ts): those rows join this one's first.
  foldNestedRunOnlyLog(runOnlyDir);
  // Brought to this schema first: the older Airlock's log may lack columns this one has.
  openLog({ dataDir: runOnlyDir }).close();
  // Throws NewerLogError while this log is still a newer Airlock's: the folder then stays.
  const db = openLog({ dataDir });
  let folded: FoldedRunOnlyLog;
  try {
    db.prepare('ATTACH DATABASE ? AS run_only').run(join(runOnlyDir, DATABASE_FILE_NAME));
    const columns = (table: string): string =>
      db
        .prepare('SELECT name FROM pragma_table_info(?, ?)')
        .all(table, 'run_only')
        .map((row) => `"${String(row.name)}"`)
        .join(', ');
    db.exec('BEGIN IMMEDIATE');
    try {
      const added = db
        .prepare(
          `SELECT COUNT(*) AS requests, TOTAL(cost_credits) AS costCredits FROM run_only.requests
           WHERE id NOT IN (SELECT id FROM main.requests)`,
        )
        .get();
      for (const table of ['requests', 'idempotent_answers']) {
        const named = columns(table);
        db.exec(`INSERT OR IGNORE INTO main.${table} (${named}) SELECT ${named} FROM run_only.${table}`);
      }
      db.exec('COMMIT');
      folded = {
        requests: Number(added?.requests ?? 0),
        costCredits: Number(added?.costCredits ?? 0),
        recoveryMessage: recovery?.message ?? null,
      };
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
    db.exec('DETACH DATABASE run_only');
  } finally {
    db.close();
  }
  handOverSpendRecords(runOnlyDir, dataDir);
  // Anything else (a damaged log it set aside, a record this log has one of already) stays, with the folder.
  if (readdirSync(runOnlyDir).every((name) => LOG_FILES.has(name))) rmSync(runOnlyDir, { recursive: true, force: true });
  return folded;
}

/** Moved where this log's open reads them, unless one of the name is there already. */
function handOverSpendRecords(runOnlyDir: string, dataDir: string): void {
  for (const name of SPEND_RECORDS) {
    const from = join(runOnlyDir, name);
    if (existsSync(from) && !existsSync(join(dataDir, name))) renameSync(from, join(dataDir, name));
  }
}

/**
 * Folds the log a further roll-back wrote inside `runOnlyDir` (a folder of the same name) into the one
 * there, when this Airlock can write both; else leaves it for a later one. Null when none was folded.
 */
export function foldNestedRunOnlyLog(runOnlyDir: string): FoldedRunOnlyLog | null {
  try {
    return foldRunOnlyLog(runOnlyDir, join(runOnlyDir, basename(runOnlyDir)));
  } catch (error) {
    if (error instanceof NewerLogError) return null;
    throw error;
  }
}
