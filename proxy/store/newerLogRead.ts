import { existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { SpendSinceQuery } from '../contracts/log.ts';
import { startOfLocalMonthMs } from '../core/localPeriods.ts';
import { RequestLogQueries } from './read/queries.ts';
import { readHeaderBytes } from './logCheck.ts';
import { DATABASE_FILE_NAME, SCHEMA_VERSION } from './schema.ts';
import { foreignWalReason } from './foreignWal.ts';
import { DB_HEADER_BYTES, installedPage1, parseDbHeader, readFileBytesAt, type WalScan } from './sqliteFile.ts';
import { SPEND_RECORDS } from './runOnlyFold.ts';

/**
 * A newer Airlock's request log, read and never written (a roll-back: app/runOnlyLog.ts). SQLite
 * opened read-only reads the WAL beside the file and cannot checkpoint it into the file, nor delete
 * it at close (sqlite.org/wal.html, "Read-Only Databases"); it does make the WAL's index (-shm) and,
 * where there was no WAL, an empty one, which it leaves: those this removes again, so the newer
 * Airlock finds the files it left, each byte as it was (rollBack/newerLog.test.ts, store/newerLogRead.test.ts).
 * Removing an index is safe here as SQLite's own last close does it: nothing writes this log while it
 * is read (the data directory's lock keeps the newer Airlock out until this one has stopped).
 */
function openReadOnly(file: string): { db: DatabaseSync; close: () => void } {
  // A log kept elsewhere through a link has its WAL and index beside the file it reaches, where SQLite makes them.
  const real = realpathSync(file);
  const made = ['-wal', '-shm'].filter((suffix) => !existsSync(`${real}${suffix}`));
  // A lock the newer log's other reader holds (a sqlite3 shell) is waited for a while, as the log's own open does.
  const db = new DatabaseSync(file, { readOnly: true, timeout: 5_000 });
  return {
    db,
    close: () => {
      db.close();
      for (const suffix of made) {
        const left = `${real}${suffix}`;
        // Only the index, and a WAL still empty: one with frames was written by someone else meanwhile.
        if (suffix === '-shm' || statSync(left, { throwIfNoEntry: false })?.size === 0) rmSync(left, { force: true });
      }
    },
  };
}

/**
 * The schema of the data directory's log when a newer Airlock wrote it, or null (ours, older, none,
 * or unreadable: the log's own check and open judge those). Read from the files, not through SQLite:
 * this runs at every start, before the log check, and SQLite even opened read-only makes files
 * beside the log. Page 1 is the newest image of it the WAL would replay, else the file's; `wal` is
 * the start's one scan of that WAL (logRecovery.ts scanLogWal). A WAL written for another database
 * (foreignWal.ts: a newer Airlock's copied beside this log) says nothing of this log: the start sets
 * it aside, and taking its page 1 sent the user's own log aside for the run.
 */
export function newerLogSchema(dataDir: string, wal: WalScan | null): number | null {
  const file = join(dataDir, DATABASE_FILE_NAME);
  const walFile = `${file}-wal`;
  try {
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return null;
    const ownWal = wal !== null && foreignWalReason(file, walFile, wal) === null ? wal : null;
    const page1 = ownWal === null ? undefined : installedPage1(ownWal);
    const header = parseDbHeader(
      page1 === undefined ? readHeaderBytes(file) : readFileBytesAt(walFile, page1.imageOffset, DB_HEADER_BYTES),
    );
    // A file overwritten (damage) has any number there: only a sound header's is a schema.
    if ('problem' in header) return null;
    return header.userVersion > SCHEMA_VERSION ? header.userVersion : null;
  } catch {
    return null;
  }
}

/** Reading the newer log's spend failed: the caps cannot count it. */
export class NewerLogReadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'NewerLogReadError';
  }
}

/** The spend a newer log holds, by the query this Airlock's own log answers the caps with. */
export interface NewerLogSpend {
  spendSince(query: SpendSinceQuery): number;
  close(): void;
}

/**
 * Opens the newer log of `dataDir` for its spend, less the rows the roll-back's own log in
 * `runOnlyDir` holds too (an update back folds that log into this one and keeps its folder while
 * something else is in it: the same rows are then in both), so each request counts once. This
 * version's migrations only ever add (schema.ts), so a newer log most likely still has every column
 * the query reads; one renamed or dropped, a damaged file or a lock fails here, with a
 * NewerLogReadError. So do spend records beside it that its Airlock could not write into it:
 * their format is that Airlock's, and without them its spend is short.
 */
export function openNewerLogSpend(dataDir: string, runOnlyDir: string, nowMs: number): NewerLogSpend {
  const records = SPEND_RECORDS.filter((name) => existsSync(join(dataDir, name)));
  if (records.length > 0) {
    throw new NewerLogReadError(
      `beside it, ${records.join(' and ')} hold(s) spend that log could not write, which this Airlock does not read`,
    );
  }
  let opened: ReturnType<typeof openReadOnly> | undefined;
  try {
    opened = openReadOnly(join(dataDir, DATABASE_FILE_NAME));
    const { db } = opened;
    const runOnlyLog = join(runOnlyDir, DATABASE_FILE_NAME);
    // The temp schema is the connection's own (memory), writable while the log is not.
    db.exec('CREATE TEMP TABLE in_both (id TEXT PRIMARY KEY)');
    if (existsSync(runOnlyLog)) {
      db.prepare('ATTACH DATABASE ? AS run_only').run(runOnlyLog);
      db.exec('INSERT INTO temp.in_both SELECT id FROM run_only.requests WHERE id IN (SELECT id FROM main.requests)');
      db.exec('DETACH DATABASE run_only');
    }
    // Named as the table, it stands for it in the query: the temp schema is searched first (sqlite.org/lang_naming.html).
    db.exec('CREATE TEMP VIEW requests AS SELECT * FROM main.requests WHERE id NOT IN (SELECT id FROM temp.in_both)');
    const queries = new RequestLogQueries(db);
    // Each of the query's forms once now, so a column it cannot read fails the start's choice, not a later check.
    const sinceMs = startOfLocalMonthMs(nowMs);
    queries.spendSince({ sinceMs, profileId: '' });
    queries.spendSince({ sinceMs, clientName: '' });
    const close = opened.close;
    return {
      spendSince: (query) => {
        try {
          return queries.spendSince(query);
        } catch (error) {
          throw new NewerLogReadError(error);
        }
      },
      close,
    };
  } catch (error) {
    opened?.close();
    throw error instanceof NewerLogReadError ? error : new NewerLogReadError(error);
  }
}
