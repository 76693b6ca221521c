import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { RequestLogRow } from '../../../proxy/contracts/log.ts';
import { readHeaderBytes } from '../../../proxy/store/logCheck.ts';
import { recoverDamagedLog } from '../../../proxy/store/logRecovery.ts';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { APPLICATION_ID_OFFSET, parseDbHeader, scanWal } from '../../../proxy/store/sqliteFile.ts';
import { LogWriter } from '../../../proxy/store/write/writer.ts';
import { batchOf, seedLog, spendRow, writeOrThrow } from './damagedLogFixture.ts';
import { tempDirPerTest } from './tempLog.ts';

const dir = tempDirPerTest('airlock-foreign-wal-');

async function rowIdsAfterStart(dataDir: string): Promise<{ ids: string[]; report: ReturnType<typeof recoverDamagedLog> }> {
  const report = recoverDamagedLog(dataDir);
  const log = createRequestLog({ dataDir, knownSecrets: () => [], minFreeDiskBytes: 0 });
  try {
    return {
      ids: log
        .listRequests({ limit: 100 })
        .rows.map((row) => row.id)
        .sort(),
      report,
    };
  } finally {
    await log.close();
  }
}

type Checkpoint = 'none' | 'full' | 'partial';

/**
 * Opens the log in `dataDir` (a fresh one where there is none) as Airlock does, commits `rows` one
 * by one, checkpoints, and copies its files while it is still open into `<dataDir>/killed`: what a
 * kill -9 or a power cut leaves. A fresh log's first WAL generation holds its tables' page 1
 * without the id, then the id. The first row comes with its bodies (the file grows: page 1 again),
 * the others as a request's start writes them, rows alone, which fit the pages there and leave
 * page 1 alone. 'partial': a second connection holds a read transaction from after the first row,
 * so the checkpoint copies only pages with no newer frame, page 1 among them, and the later rows
 * stay in the WAL alone.
 */
function killedAfterCheckpoint(dataDir: string, rows: RequestLogRow[], checkpoint: Checkpoint): string {
  const db = openLogDatabase({ dataDir });
  const reader = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME));
  try {
    db.exec('PRAGMA wal_autocheckpoint = 0');
    const writer = new LogWriter(db);
    const [first, ...later] = rows;
    if (first !== undefined) writeOrThrow(writer, batchOf([first]));
    if (checkpoint === 'partial') {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM requests').get();
    }
    for (const row of later) writeOrThrow(writer, { rows: [row], bodies: [] });
    if (checkpoint !== 'none') {
      const done = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number; checkpointed: number };
      expect(done.checkpointed < done.log, 'the reader stops the checkpoint short').toBe(checkpoint === 'partial');
    }
    const killed = join(dataDir, 'killed');
    mkdirSync(killed);
    for (const suffix of ['', '-wal'])
      copyFileSync(join(dataDir, `${DATABASE_FILE_NAME}${suffix}`), join(killed, `${DATABASE_FILE_NAME}${suffix}`));
    return killed;
  } finally {
    reader.close();
    db.close();
  }
}

/** The application_id in the file's page 1, and in each image of page 1 its WAL replays, oldest first. */
function applicationIds(dataDir: string): { file: number; wal: number[] } {
  const dbPath = join(dataDir, DATABASE_FILE_NAME);
  const header = parseDbHeader(readHeaderBytes(dbPath));
  if ('problem' in header) throw new Error(header.problem);
  const walBytes = readFileSync(`${dbPath}-wal`);
  const wal = scanWal(`${dbPath}-wal`)
    .frames.filter((frame) => frame.replayed && frame.pageNumber === 1)
    .map((frame) => walBytes.readUInt32BE(frame.imageOffset + APPLICATION_ID_OFFSET));
  return { file: header.applicationId, wal };
}

const ROWS = [spendRow('alk_mine_1', 0.4), spendRow('alk_mine_2', 0.4), spendRow('alk_mine_3', 0.4)];
const ROW_IDS = ROWS.map((row) => row.id);

describe("the log's own WAL after a kill", () => {
  // Its first generation holds page 1 from before the id (the tables), then with it: the WAL is
  // judged by the image SQLite installs, the newest committed one.
  it.each(['full', 'partial'] as const)(
    'after a %s checkpoint copied the id into the file: replayed, without an alarm',
    async (checkpoint) => {
      const killed = killedAfterCheckpoint(dir(), ROWS, checkpoint);
      const ids = applicationIds(killed);
      expect(ids.file).not.toBe(0);
      expect(ids.wal).toContain(0);

      const { ids: rowIds, report } = await rowIdsAfterStart(killed);
      expect(report).toBeNull();
      expect(rowIds).toEqual(ROW_IDS);
    },
  );

  // Every open writes page 1 (PRAGMA auto_vacuum rewrites its flag there) before the id is given.
  it.each(['none', 'partial'] as const)(
    'of a log from before the ids, first opened by this version (checkpoint: %s): replayed, without an alarm',
    async (checkpoint) => {
      seedLog(dir(), { rows: ROWS.slice(0, 1), applicationId: 0 });
      const killed = killedAfterCheckpoint(dir(), ROWS.slice(1), checkpoint);
      expect(applicationIds(killed).file === 0).toBe(checkpoint === 'none');

      const { ids, report } = await rowIdsAfterStart(killed);
      expect(report).toBeNull();
      expect(ids).toEqual(ROW_IDS);
    },
  );
});

describe('a WAL beside the log that belongs to another database', () => {
  it('from a log of an Airlock before the ids (0 in every page 1 it holds): set aside unread', async () => {
    seedLog(dir(), { rows: ROWS.slice(0, 2) });
    const other = join(dir(), 'other');
    mkdirSync(other);
    seedLog(other, { applicationId: 0, rows: [spendRow('alk_theirs_1', 5)], walRows: [spendRow('alk_theirs_2', 5)] });
    expect(applicationIds(other).wal).toEqual(expect.arrayContaining([0]));
    copyFileSync(join(other, `${DATABASE_FILE_NAME}-wal`), join(dir(), `${DATABASE_FILE_NAME}-wal`));

    const { ids, report } = await rowIdsAfterStart(dir());
    expect(report?.message).toMatch(/belongs to another database.*its application id 0/);
    expect(ids).toEqual(ROW_IDS.slice(0, 2));
  });

  it('from a fresh log killed before its first checkpoint (page 1 without, then with its id): set aside unread', async () => {
    seedLog(dir(), { rows: ROWS.slice(0, 2) });
    const other = join(dir(), 'other');
    const killedOther = killedAfterCheckpoint(other, [spendRow('alk_theirs_1', 5)], 'none');
    const otherIds = applicationIds(killedOther);
    expect(otherIds.wal[0]).toBe(0);
    expect(otherIds.wal.at(-1)).not.toBe(0);
    copyFileSync(join(killedOther, `${DATABASE_FILE_NAME}-wal`), join(dir(), `${DATABASE_FILE_NAME}-wal`));

    const { ids, report } = await rowIdsAfterStart(dir());
    expect(report?.message).toMatch(new RegExp(`belongs to another database.*its application id ${otherIds.wal.at(-1)}`));
    expect(ids).toEqual(ROW_IDS.slice(0, 2));
  });

  it('is set aside unread, and the log keeps its own rows (SQLite would replay it over them)', async () => {
    // This machine's log: two requests, cleanly closed (no WAL).
    seedLog(dir(), { rows: [spendRow('alk_mine_1', 0.4), spendRow('alk_mine_2', 0.4)] });
    // Another data directory's log, killed with a request only in its WAL: its WAL is copied in beside ours.
    const other = join(dir(), 'other');
    mkdirSync(other);
    seedLog(other, { rows: [spendRow('alk_theirs_1', 5)], walRows: [spendRow('alk_theirs_2', 5)] });
    copyFileSync(join(other, `${DATABASE_FILE_NAME}-wal`), join(dir(), `${DATABASE_FILE_NAME}-wal`));

    const { ids, report } = await rowIdsAfterStart(dir());
    expect(ids).toEqual(['alk_mine_1', 'alk_mine_2']);
    expect(report?.message).toMatch(/belongs to another database/);
    const aside = readdirSync(dir()).filter((name) => name.endsWith('-wal') && name !== `${DATABASE_FILE_NAME}-wal`);
    expect(aside).toHaveLength(1);
    expect(report?.message).toContain(join(dir(), aside[0] as string));
    expect(existsSync(join(dir(), `${DATABASE_FILE_NAME}-wal`))).toBe(false);
  });

  it("replays the log's own WAL a kill left, as before", async () => {
    seedLog(dir(), { rows: [spendRow('alk_mine_1', 0.4)], walRows: [spendRow('alk_mine_2', 0.4), spendRow('alk_mine_3', 0.4)] });
    const { ids, report } = await rowIdsAfterStart(dir());
    expect(ids).toEqual(['alk_mine_1', 'alk_mine_2', 'alk_mine_3']);
    expect(report).toBeNull();
  });
});
