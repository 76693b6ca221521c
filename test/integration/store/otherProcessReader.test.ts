import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

/**
 * Another program opening the request log while Airlock runs (the sqlite3 shell, DB Browser, a
 * backup script): when it closes, SQLite checkpoints and deletes the WAL and its shared memory if
 * it can take an exclusive lock on the database file, that is, if no other process holds the
 * shared lock every open WAL connection keeps. POSIX drops all of a process's locks on a file when
 * any descriptor of it is closed (sqlite.org/howtocorrupt.html, 2.2), and the log thread's open
 * closed one it had made to create the file 0600 after the main connection had its lock: the
 * other program then deleted the WAL under Airlock, whose next checkpoint failed with "disk I/O
 * error", and whose later commits went to a file no longer in the directory (probe B).
 */
let temp: TempLog;
afterEach(async () => {
  await temp.cleanup();
});

/** Runs `script` in another process (POSIX locks are per process) with the log's path as its argument. */
function inAnotherProcess(dataDir: string, script: string): string {
  return execFileSync(process.execPath, ['-e', script, join(dataDir, DATABASE_FILE_NAME)], { encoding: 'utf8' });
}

/**
 * Whether another process can lock the log for itself, which it can only while no process holds
 * the shared lock: then its close would delete the WAL. `refused` is the answer a log in use gives.
 */
const TRY_EXCLUSIVE = `
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(process.argv[1], { timeout: 0 });
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    process.stdout.write('locked');
  } catch {
    process.stdout.write('refused');
  } finally {
    db.close();
  }`;

const COUNT_ROWS = `
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(process.argv[1]);
  process.stdout.write(String(db.prepare('SELECT count(*) AS n FROM requests').get().n));
  db.close();`;

describe('another process that opens the request log while Airlock runs', () => {
  it('cannot lock it for itself, so its close leaves the WAL, and it sees the rows written after', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('before'));
    temp.events.emit(endEvent('before'));
    await temp.log.flush();
    expect(inAnotherProcess(temp.dataDir, TRY_EXCLUSIVE)).toBe('refused');
    expect(existsSync(join(temp.dataDir, `${DATABASE_FILE_NAME}-wal`))).toBe(true);

    temp.events.emit(startEvent('after'));
    temp.events.emit(endEvent('after'));
    await temp.log.flush();
    expect(temp.log.status().reason).toBeNull();
    expect(inAnotherProcess(temp.dataDir, COUNT_ROWS)).toBe('2');
  });
});
