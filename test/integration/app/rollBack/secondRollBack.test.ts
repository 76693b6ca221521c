import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ONLY_LOG_DIR_NAME } from '../../../../proxy/app/runOnlyLog.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { DATABASE_FILE_NAME, openLogDatabase, SCHEMA_VERSION } from '../../../../proxy/store/schema.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { newerLogFiles, writeNewerLog } from './newerLogFiles.ts';

let dataDir: string;
let apartDir: string;
let airlock: Airlock | undefined;

function insertRow(logDir: string, id: string, costCredits: number): void {
  const db = openLogDatabase({ dataDir: logDir });
  db.prepare(
    `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits, profile_id)
     VALUES (?, ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', 'done', ?, 'p')`,
  ).run(id, Date.now(), costCredits);
  db.close();
}

function setSchema(logDir: string, schema: number): void {
  const db = new DatabaseSync(path.join(logDir, DATABASE_FILE_NAME));
  db.exec(`PRAGMA user_version = ${schema}`);
  db.close();
}

const start = async (): Promise<Airlock> => {
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({}) });
  return airlock;
};

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-second-roll-back-'));
  apartDir = path.join(dataDir, RUN_ONLY_LOG_DIR_NAME);
  // Version 3 wrote the log; rolled back to 2, which logged apart; now rolled back again, to this one.
  writeNewerLog(dataDir, [{ id: 'alk_by_3', costCredits: 0.5, profileId: 'p' }], [], `PRAGMA user_version = ${SCHEMA_VERSION + 2}`);
  // Version 2's log apart, a crash leaving its WAL.
  mkdirSync(apartDir);
  writeNewerLog(
    apartDir,
    [{ id: 'alk_by_2', costCredits: 0.25, profileId: 'p' }],
    [{ id: 'alk_by_2_in_wal', costCredits: 0.25, profileId: 'p' }],
  );
});
afterAll(async () => {
  await airlock?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a second roll-back in a row (3 to 2 to 1)', () => {
  it("starts, logging apart inside the first one's folder, with caps refused: neither newer log's spend is read", async () => {
    const filesBefore = { main: newerLogFiles(dataDir), apart: newerLogFiles(apartDir) };
    expect(Object.keys(filesBefore.apart)).toEqual([DATABASE_FILE_NAME, `${DATABASE_FILE_NAME}-wal`]);
    const started = await start();
    expect(started.log.ledgerGap(Date.now())?.reason).toContain('an earlier roll-back logged apart');
    expect(started.notices.join('\n')).toContain('was written by a newer Airlock');
    await started.stop();
    airlock = undefined;
    expect(existsSync(path.join(apartDir, RUN_ONLY_LOG_DIR_NAME, DATABASE_FILE_NAME))).toBe(true);
    expect({ main: newerLogFiles(dataDir), apart: newerLogFiles(apartDir) }).toEqual(filesBefore);
  });

  it("updated to 2, what this run logged apart joins 2's log apart, and the caps count it with 3's log", async () => {
    // What this run logged apart; then the update to 2: its log apart is of this schema again, 3's log still newer.
    insertRow(path.join(apartDir, RUN_ONLY_LOG_DIR_NAME), 'alk_by_1', 0.125);
    setSchema(apartDir, SCHEMA_VERSION);
    const started = await start();
    expect(started.log.ledgerGap(Date.now())).toBeNull();
    expect(started.log.spendSince({ sinceMs: 0, profileId: 'p' })).toBeCloseTo(1.125, 9);
    expect(started.notices.join('\n')).toContain('1 request(s) an older Airlock logged apart');
    expect(existsSync(path.join(apartDir, RUN_ONLY_LOG_DIR_NAME))).toBe(false);
    await started.stop();
    airlock = undefined;
  });

  it('updated back to 3, the log apart joins the log, each row once', async () => {
    setSchema(dataDir, SCHEMA_VERSION);
    const started = await start();
    expect(
      started.log
        .listRequests({})
        .rows.map((row) => row.id)
        .sort(),
    ).toEqual(['alk_by_1', 'alk_by_2', 'alk_by_2_in_wal', 'alk_by_3']);
    expect(started.log.spendSince({ sinceMs: 0, profileId: 'p' })).toBeCloseTo(1.125, 9);
    expect(existsSync(apartDir)).toBe(false);
  });
});
