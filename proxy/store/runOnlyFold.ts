import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE_NAME, openLogDatabase } from './schema.ts';

export interface FoldedRunOnlyLog {
  requests: number;
  costCredits: number;
}

/**
 * Requests an older Airlock logged apart, in `runOnlyDir`, while this log was too new for it (a
 * roll-back: app/runOnlyLog.ts), join this log, so the budgets count their spend after the update
 * back. Rows only (their bodies are not copied), each once: an id already here is skipped, so a fold
 * cut short is done again whole at the next start, and the folder goes once its rows are in. Run
 * before the log opens, which marks a row left in flight interrupted. Null when there is none.
 */
export function foldRunOnlyLog(dataDir: string, runOnlyDir: string): FoldedRunOnlyLog | null {
  if (!existsSync(join(runOnlyDir, DATABASE_FILE_NAME))) return null;
  // Brought to this schema first: the older Airlock's log may lack columns this one has.
  openLogDatabase({ dataDir: runOnlyDir }).close();
  // Throws NewerLogError while this log is still a newer Airlock's: the folder then stays.
  const db = openLogDatabase({ dataDir });
  let folded: FoldedRunOnlyLog;
  try {
    db.prepare('ATTACH DATABASE ? AS run_only').run(join(runOnlyDir, DATABASE_FILE_NAME));
    const columns = db
      .prepare("SELECT name FROM pragma_table_info('requests', 'run_only')")
      .all()
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
      db.exec(`INSERT OR IGNORE INTO main.requests (${columns}) SELECT ${columns} FROM run_only.requests`);
      db.exec('COMMIT');
      folded = { requests: Number(added?.requests ?? 0), costCredits: Number(added?.costCredits ?? 0) };
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
    db.exec('DETACH DATABASE run_only');
  } finally {
    db.close();
  }
  rmSync(runOnlyDir, { recursive: true, force: true });
  return folded;
}
