import { closeSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { CLI_COMMAND } from '../contracts/cli.ts';
import { DatabaseSync } from 'node:sqlite';
import { isDamageError } from '../store/logCheck.ts';

export const LOCK_FILE_NAME = 'airlock.lock';

/**
 * Two proxies on one data directory would both write its log, and the second's start would mark
 * the first's requests in flight as interrupted. The desktop app holds Electron's single-instance
 * lock, but `airlock serve` (on another port) could still start beside it.
 */
export class DataDirInUseError extends Error {
  readonly holderPid: number | null;

  constructor(dataDir: string, holderPid: number | null) {
    super(
      `Another Airlock (${holderPid === null ? 'starting now' : `process ${holderPid}`}) is running with the data directory ${dataDir}. ` +
        `Quit it (or stop its \`${CLI_COMMAND} serve\`) first, or give this one its own directory with --data-dir.`,
    );
    this.name = 'DataDirInUseError';
    this.holderPid = holderPid;
  }
}

export interface DataDirLock {
  release(): void;
}

export interface LockOptions {
  pid?: number;
  /** Whether a process runs (for the text lock of an earlier Airlock); tests pass their own. */
  isRunning?: (pid: number) => boolean;
}

const SQLITE_BUSY = 5;
/**
 * Lock files this process holds, by path, with the PID they hold. POSIX drops a process's fcntl
 * locks on a file when it closes any descriptor of it, so this process must not open its own lock
 * file again: a second start in it is refused from here.
 */
const heldByThisProcess = new Map<string, number>();
const SQLITE_HEADER = 'SQLite format 3\0';

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isBusy = (error: unknown): boolean => ((error as { errcode?: unknown }).errcode as number) % 256 === SQLITE_BUSY;

function inodeOf(file: string): bigint | null {
  try {
    return statSync(file, { bigint: true }).ino;
  } catch {
    return null;
  }
}

/**
 * Earlier Airlocks wrote their PID as text and judged a lock by whether that PID ran. Such a lock
 * whose process runs is still honoured (an older Airlock may run), any other is removed.
 */
function clearTextLock(dataDir: string, file: string, isRunning: (pid: number) => boolean): void {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return;
  }
  if (text.length === 0 || text.startsWith(SQLITE_HEADER)) return;
  const pid = Number.parseInt(text, 10);
  if (Number.isInteger(pid) && pid > 0 && isRunning(pid)) throw new DataDirInUseError(dataDir, pid);
  rmSync(file, { force: true });
}

function holderPid(db: DatabaseSync): number | null {
  try {
    const pid = Number(db.prepare('SELECT pid FROM holder').get()?.pid);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    // The holder has not written its PID yet.
    return null;
  }
}

/** Takes the write lock of the lock database, or throws DataDirInUseError naming its holder. */
function takeWriteLock(db: DatabaseSync, dataDir: string): void {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    if (!isBusy(error)) throw error;
    throw new DataDirInUseError(dataDir, holderPid(db));
  }
}

/**
 * Takes the data directory for this process: the write lock of a small SQLite database, held open
 * for the whole run. The OS keeps that lock (fcntl on Unix, LockFileEx on Windows) only while the
 * process lives, so a crash or kill -9 frees it, and a PID handed to another program since cannot
 * pass for a running Airlock. The holder's PID is stored in it for the refusal. The file is kept
 * after release; a start that opened a file someone removed or replaced meanwhile finds that once
 * locked, and tries again on the new one.
 */
export function lockDataDir(dataDir: string, options: LockOptions = {}): DataDirLock {
  const file = path.resolve(dataDir, LOCK_FILE_NAME);
  const pid = options.pid ?? process.pid;
  const heldPid = heldByThisProcess.get(file);
  if (heldPid !== undefined) throw new DataDirInUseError(dataDir, heldPid);
  clearTextLock(dataDir, file, options.isRunning ?? processIsRunning);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    // Created 0600 before SQLite opens it, which would make it readable by everyone.
    closeSync(openSync(file, 'a', 0o600));
    const openedInode = inodeOf(file);
    const db = new DatabaseSync(file, { timeout: 0 });
    try {
      // No journal file: a kept lock file is taken again by writing the PID in place, with no
      // new disk space, so a full disk does not stop the start here.
      db.exec('PRAGMA journal_mode = MEMORY');
      takeWriteLock(db, dataDir);
      if (openedInode === null || inodeOf(file) !== openedInode) {
        db.close();
        continue;
      }
      db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL)');
      db.prepare('INSERT INTO holder (id, pid) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET pid = excluded.pid').run(pid);
      db.exec('COMMIT');
      // Readers see the PID now; the write lock held from here on is the lock itself.
      takeWriteLock(db, dataDir);
      if (holderPid(db) !== pid) {
        db.exec('ROLLBACK');
        db.close();
        continue;
      }
    } catch (error) {
      db.close();
      if (!isDamageError(error)) throw error;
      // Torn pages (a power cut while the PID was written, with no journal on disk): it holds
      // nothing worth keeping, and no one holds a lock they could not write their PID under.
      rmSync(file, { force: true });
      continue;
    }
    heldByThisProcess.set(file, pid);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        db.close();
        heldByThisProcess.delete(file);
      },
    };
  }
  throw new Error(`Airlock could not lock its data directory ${dataDir}: another start keeps replacing ${LOCK_FILE_NAME}.`);
}
