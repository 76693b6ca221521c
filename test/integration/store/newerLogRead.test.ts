import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NewerLogReadError, newerLogSchema, openNewerLogSpend } from '../../../proxy/store/newerLogRead.ts';
import { scanLogWal } from '../../../proxy/store/logRecovery.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { UNWRITTEN_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenSpendFile.ts';
import { NEWER_SCHEMA, newerLogFiles, writeNewerLog } from '../app/rollBack/newerLogFiles.ts';

let dataDir: string;
let runOnlyDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-newer-read-'));
  runOnlyDir = path.join(dataDir, 'run-only');
  mkdirSync(runOnlyDir);
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const readError = (): unknown => {
  try {
    openNewerLogSpend(dataDir, runOnlyDir, Date.now()).close();
    return null;
  } catch (error) {
    return error;
  }
};

describe("a newer Airlock's log, read for its spend", () => {
  it('closed cleanly (no WAL): reading leaves no file beside it that was not there', () => {
    const db = openLogDatabase({ dataDir });
    db.prepare(
      `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits, profile_id)
       VALUES ('alk_1', ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', 'done', 2.5, 'p')`,
    ).run(Date.now());
    db.exec(`PRAGMA user_version = ${NEWER_SCHEMA}`);
    db.close();
    const before = newerLogFiles(dataDir);
    expect(Object.keys(before)).toEqual([DATABASE_FILE_NAME]);
    expect(newerLogSchema(dataDir, scanLogWal(dataDir))).toBe(NEWER_SCHEMA);
    const spend = openNewerLogSpend(dataDir, runOnlyDir, Date.now());
    expect(spend.spendSince({ sinceMs: 0, profileId: 'p' })).toBe(2.5);
    spend.close();
    expect(newerLogFiles(dataDir)).toEqual(before);
  });

  it('kept on another disk through a link: reading leaves no file beside the file it reaches either', () => {
    const disk = path.join(dataDir, 'other-disk');
    const db = openLogDatabase({ dataDir: disk });
    db.exec(`PRAGMA user_version = ${NEWER_SCHEMA}`);
    db.close();
    symlinkSync(path.join(disk, DATABASE_FILE_NAME), path.join(dataDir, DATABASE_FILE_NAME));
    const before = newerLogFiles(disk);
    expect(newerLogSchema(dataDir, scanLogWal(dataDir))).toBe(NEWER_SCHEMA);
    openNewerLogSpend(dataDir, runOnlyDir, Date.now()).close();
    expect(newerLogFiles(disk)).toEqual(before);
  });

  it("is told newer by the WAL's page 1 where only the WAL holds the newer schema", () => {
    const staging = path.join(dataDir, 'staging');
    const db = openLogDatabase({ dataDir: staging });
    db.exec('PRAGMA wal_autocheckpoint = 0');
    db.exec(`PRAGMA user_version = ${NEWER_SCHEMA}`);
    for (const suffix of ['', '-wal'])
      copyFileSync(path.join(staging, `${DATABASE_FILE_NAME}${suffix}`), path.join(dataDir, `${DATABASE_FILE_NAME}${suffix}`));
    db.close();
    expect(readFileSync(path.join(dataDir, DATABASE_FILE_NAME)).readUInt32BE(60)).toBeLessThan(NEWER_SCHEMA);
    expect(newerLogSchema(dataDir, scanLogWal(dataDir))).toBe(NEWER_SCHEMA);
  });

  it('is not taken for a newer one when it is of this schema', () => {
    openLogDatabase({ dataDir }).close();
    expect(newerLogSchema(dataDir, scanLogWal(dataDir))).toBeNull();
  });

  it('with spend its Airlock could not write beside it, is not read: its spend would be short', () => {
    writeNewerLog(dataDir, [{ id: 'alk_1', costCredits: 1, profileId: 'p' }], []);
    writeFileSync(path.join(dataDir, UNWRITTEN_SPEND_FILE_NAME), '{}');
    const error = readError();
    expect(error).toBeInstanceOf(NewerLogReadError);
    expect(String(error)).toContain(`beside it, ${UNWRITTEN_SPEND_FILE_NAME} hold(s) spend that log could not write`);
  });

  it('damaged past its header, fails with what SQLite said', () => {
    writeNewerLog(dataDir, [{ id: 'alk_1', costCredits: 1, profileId: 'p' }], []);
    rmSync(path.join(dataDir, `${DATABASE_FILE_NAME}-wal`));
    // Every page after the first overwritten: the schema's tables are there no more.
    const file = path.join(dataDir, DATABASE_FILE_NAME);
    const bytes = readFileSync(file);
    bytes.fill(0xa5, 4096);
    writeFileSync(file, bytes);
    expect(newerLogSchema(dataDir, scanLogWal(dataDir))).toBe(NEWER_SCHEMA);
    const error = readError();
    expect(error).toBeInstanceOf(NewerLogReadError);
    expect(String(error)).toContain('database disk image is malformed');
  });
});
