import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DATABASE_FILE_NAME, openLogDatabase, SCHEMA_VERSION } from '../../../../proxy/store/schema.ts';

export const NEWER_SCHEMA = SCHEMA_VERSION + 1;

export interface NewerRow {
  id: string;
  costCredits: number;
  profileId: string;
}

/**
 * A newer Airlock's log as a crash leaves it in `dataDir`: this schema plus a column this Airlock
 * does not know, `inFile` checkpointed into the file and `inWal` only in the WAL beside it (what a
 * read-write open would checkpoint into the file at its close), as `change` (SQL, in the WAL too) last alters it.
 */
export function writeNewerLog(dataDir: string, inFile: readonly NewerRow[], inWal: readonly NewerRow[], change = ''): void {
  const staging = mkdtempSync(path.join(tmpdir(), 'airlock-newer-staging-'));
  const db = openLogDatabase({ dataDir: staging });
  const insert = (row: NewerRow) =>
    db
      .prepare(
        `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits, profile_id)
         VALUES (?, ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', 'done', ?, ?)`,
      )
      .run(row.id, Date.now(), row.costCredits, row.profileId);
  try {
    for (const row of inFile) insert(row);
    db.exec('ALTER TABLE requests ADD COLUMN from_a_newer_airlock TEXT');
    db.exec(`PRAGMA user_version = ${NEWER_SCHEMA}`);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.exec('PRAGMA wal_autocheckpoint = 0');
    for (const row of inWal) insert(row);
    if (change) db.exec(change);
    // Copied while open: the WAL is still there, as a newer Airlock that did not close its log left it.
    for (const suffix of ['', '-wal'])
      copyFileSync(path.join(staging, `${DATABASE_FILE_NAME}${suffix}`), path.join(dataDir, `${DATABASE_FILE_NAME}${suffix}`));
  } finally {
    db.close();
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The log's files in `dataDir` by name, each as a hash of its bytes. */
export function newerLogFiles(dataDir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dataDir)
    .filter((entry) => entry.startsWith(DATABASE_FILE_NAME))
    .sort()) {
    files[name] = createHash('sha256')
      .update(readFileSync(path.join(dataDir, name)))
      .digest('hex');
  }
  return files;
}
