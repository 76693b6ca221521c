import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { checkLogFiles, diskFullFix, RequestLogUnreadableError } from '../../../proxy/store/logCheck.ts';
import { recoverDamagedLog, RequestLogDamagedError } from '../../../proxy/store/logRecovery.ts';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME, MIGRATIONS, readPragma, SCHEMA_VERSION } from '../../../proxy/store/schema.ts';
import { overwrite, seedLog, spendRow } from './damagedLogFixture.ts';
import { tempDirPerTest } from './tempLog.ts';

const dir = tempDirPerTest('airlock-log-start-failure-');
const dbPath = (): string => join(dir(), DATABASE_FILE_NAME);
/** Dated when a test seeds them, not when the file loads: a run across midnight counted them as yesterday's. */
const spent = () => [spendRow('alk_spent_1', 0.4), spendRow('alk_spent_2', 0.4), spendRow('alk_spent_3', 0.4)];

/** What SQLite throws when the disk fails under it: not damage, and nothing to move aside for. */
function sqliteError(message: string, errcode: number): Error {
  return Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode });
}
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;

const damagedNames = (): string[] => readdirSync(dir()).filter((name) => name.includes('damaged'));

describe('a start check that cannot read the log', () => {
  it('is not taken for damage: the check throws, naming the file and the cause', () => {
    seedLog(dir(), { walRows: spent() });
    const failingOpen = (): DatabaseSync => {
      throw sqliteError('disk I/O error', SQLITE_IOERR);
    };
    const check = () => checkLogFiles(dir(), DATABASE_FILE_NAME, failingOpen);
    expect(check).toThrow(RequestLogUnreadableError);
    expect(check).toThrow(`Airlock could not read its request log ${dbPath()}: disk I/O error`);
  });

  it('names the full disk and the fix, and leaves the sound log and its WAL where they are', () => {
    seedLog(dir(), { walRows: spent() });
    const before = readFileSync(`${dbPath()}-wal`);
    const failingOpen = (): DatabaseSync => {
      throw sqliteError('database or disk is full', SQLITE_FULL);
    };
    expect(() => recoverDamagedLog(dir(), Date.now(), { openForCheck: failingOpen })).toThrow(
      new RegExp(`The disk holding ${dir()} is full: free space there`),
    );
    expect(damagedNames()).toEqual([]);
    expect(readFileSync(`${dbPath()}-wal`).equals(before)).toBe(true);
    // Once the disk answers again the log is sound and left alone.
    expect(recoverDamagedLog(dir())).toBeNull();
  });
});

describe('a directory where the log file belongs', () => {
  it('is named as such, with the fix, and nothing is moved', () => {
    mkdirSync(dbPath());
    const start = () => recoverDamagedLog(dir());
    expect(start).toThrow(RequestLogUnreadableError);
    expect(start).toThrow(
      `${dbPath()} is a directory, not the request log file: move it out of ${dir()} (or delete it), then start Airlock again; it starts a fresh log.`,
    );
    expect(statSync(dbPath()).isDirectory()).toBe(true);
  });

  it('is named as such when a WAL lies beside it too', () => {
    const other = join(dir(), 'other');
    mkdirSync(other);
    seedLog(other, { walRows: spent() });
    mkdirSync(dbPath());
    copyFileSync(join(other, `${DATABASE_FILE_NAME}-wal`), `${dbPath()}-wal`);
    const start = () => recoverDamagedLog(dir());
    expect(start).toThrow(`${dbPath()} is a directory, not the request log file`);
    expect(statSync(dbPath()).isDirectory()).toBe(true);
    expect(statSync(`${dbPath()}-wal`).isFile()).toBe(true);
  });
});

describe('a damaged log whose fresh log cannot be made', () => {
  it('puts the damaged log back, so its spend is read back at the next start', () => {
    seedLog(dir(), { rows: spent() });
    overwrite(dbPath(), 0, Buffer.from('this is not a database header any more'));
    const damagedBytes = readFileSync(dbPath());
    const fullDiskFreshLog = (): DatabaseSync => {
      // As on a full disk: the empty file is made, then SQLite cannot write its first page.
      closeSync(openSync(dbPath(), 'a'));
      throw sqliteError('database or disk is full', SQLITE_FULL);
    };
    const start = () => recoverDamagedLog(dir(), Date.now(), { openFreshLog: fullDiskFreshLog });
    expect(start).toThrow(RequestLogDamagedError);
    expect(start).toThrow(/left where it is.*The disk holding .* is full/);
    expect(damagedNames()).toEqual([]);
    expect(readFileSync(dbPath()).equals(damagedBytes)).toBe(true);

    const recovered = recoverDamagedLog(dir());
    expect(recovered?.recoveredRequests).toBe(3);
    expect(recovered?.recoveredTodayCredits).toBeCloseTo(1.2, 9);
  });
});

/** A log written by an Airlock of schema `version`, holding `rows` requests of 1 credit each. */
function olderLog(version: number, rows: number): void {
  const db = new DatabaseSync(dbPath());
  db.exec('PRAGMA auto_vacuum = INCREMENTAL');
  db.exec('PRAGMA journal_mode = WAL');
  for (const [index, migration] of MIGRATIONS.slice(0, version).entries()) {
    db.exec(migration);
    db.exec(`PRAGMA user_version = ${index + 1}`);
  }
  const insert = db.prepare(
    `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits)
     VALUES (?, ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', 'done', 1)`,
  );
  for (let index = 0; index < rows; index += 1) insert.run(`alk_older_${index}`, Date.now() - index);
  db.close();
}

function schemaVersion(): number {
  const db = new DatabaseSync(dbPath(), { readOnly: true });
  try {
    return Number(readPragma(db, 'user_version'));
  } finally {
    db.close();
  }
}

describe('an upgrade whose migration the disk cannot take', () => {
  it('fails the start naming the log, the full disk and the fix, keeps the old log whole, and migrates once there is room', () => {
    const OLDER_SCHEMA = 3;
    olderLog(OLDER_SCHEMA, 500);
    // The size limit stands for a full disk: the file has no room for the tables the upgrade adds.
    const fullDiskBytes = statSync(dbPath()).size;
    const start = () => createRequestLog({ dataDir: dir(), knownSecrets: () => [], maxDbBytes: fullDiskBytes });
    expect(start).toThrow(RequestLogUnreadableError);
    expect(start).toThrow(`Airlock could not read its request log ${dbPath()}: database or disk is full.`);
    expect(start).toThrow(`The disk holding ${dir()} is full: free space there, then start Airlock again.`);
    // Each migration commits whole or not at all: the ones that fit stay, the rest wait for room.
    expect(schemaVersion()).toBeGreaterThanOrEqual(OLDER_SCHEMA);
    expect(schemaVersion()).toBeLessThan(SCHEMA_VERSION);

    const log = createRequestLog({ dataDir: dir(), knownSecrets: () => [] });
    try {
      expect(schemaVersion()).toBe(SCHEMA_VERSION);
      expect(log.spendSince({ sinceMs: 0 })).toBe(500);
    } finally {
      void log.close();
    }
  });
});

describe('diskFullFix', () => {
  it.each([
    { name: 'SQLITE_FULL', cause: sqliteError('database or disk is full', SQLITE_FULL), full: true },
    { name: 'an extended SQLITE_FULL code', cause: sqliteError('database or disk is full', SQLITE_FULL | (1 << 8)), full: true },
    { name: 'ENOSPC', cause: Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }), full: true },
    // With room on the disk an I/O error is not a full disk (SQLite calls a full one so when it cannot make its -shm).
    { name: 'an I/O error with room left', cause: sqliteError('disk I/O error', SQLITE_IOERR), full: false },
    { name: 'a permission error', cause: Object.assign(new Error('permission denied'), { code: 'EACCES' }), full: false },
  ])('$name', ({ cause, full }) => {
    expect(diskFullFix(dir(), cause)).toEqual(
      full ? `The disk holding ${dir()} is full: free space there, then start Airlock again.` : null,
    );
  });
});
