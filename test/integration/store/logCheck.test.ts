import { copyFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLogFiles } from '../../../proxy/store/logCheck.ts';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { scanWal } from '../../../proxy/store/sqliteFile.ts';
import { LogWriter } from '../../../proxy/store/write/writer.ts';
import { overwrite, seedLog, spendRow, writeOrThrow } from './damagedLogFixture.ts';
import { tempDirPerTest } from './tempLog.ts';

const dir = tempDirPerTest('airlock-log-check-');
const dbPath = (): string => join(dir(), DATABASE_FILE_NAME);

describe('checking the request log before it opens', () => {
  it('skips quick_check for a file untouched since a clean close, and runs it after a crash', async () => {
    const log = createRequestLog({ dataDir: dir(), knownSecrets: () => [], minFreeDiskBytes: 0 });
    await log.close();
    expect(checkLogFiles(dir(), DATABASE_FILE_NAME)).toEqual({ sound: true, quickCheckMs: null });
    // The record is taken by the check: a run that then crashes leaves none behind.
    expect(checkLogFiles(dir(), DATABASE_FILE_NAME)).toMatchObject({ sound: true, quickCheckMs: expect.any(Number) });
  });

  it('calls a file cut at a page boundary or inside a page damaged', () => {
    seedLog(dir(), { rows: [spendRow('alk_1', 0.1)] });
    const sizeBytes = statSync(dbPath()).size;
    truncateSync(dbPath(), sizeBytes - 4096);
    expect(checkLogFiles(dir(), DATABASE_FILE_NAME)).toMatchObject({
      sound: false,
      reason: expect.stringMatching(/cut short \(\d+ of its \d+ bytes remain\)/),
    });
    truncateSync(dbPath(), sizeBytes - 4096 - 100);
    expect(checkLogFiles(dir(), DATABASE_FILE_NAME)).toMatchObject({
      sound: false,
      reason: expect.stringMatching(/cut short in the middle of a page/),
    });
  });
});

describe('the WAL check', () => {
  it('finds no damage in a WAL a crash left, nor in one SQLite restarted over an older generation', () => {
    seedLog(dir(), { walRows: [spendRow('alk_1', 0.1), spendRow('alk_2', 0.1)] });
    expect(scanWal(`${dbPath()}-wal`).problem).toBeNull();

    const liveDir = join(dir(), 'live');
    const db = openLogDatabase({ dataDir: liveDir });
    try {
      db.exec('PRAGMA wal_autocheckpoint = 0');
      const writer = new LogWriter(db);
      for (let index = 0; index < 20; index += 1) writeOrThrow(writer, { rows: [spendRow(`alk_old_${index}`, 0.1)], bodies: [] });
      db.exec('PRAGMA wal_checkpoint(RESTART)');
      // The next commit starts the WAL over with new salts; the older frames stay behind it.
      writeOrThrow(writer, { rows: [spendRow('alk_new', 0.1)], bodies: [] });
      copyFileSync(join(liveDir, `${DATABASE_FILE_NAME}-wal`), join(dir(), 'restarted-wal'));
    } finally {
      db.close();
    }
    const restarted = scanWal(join(dir(), 'restarted-wal'));
    expect(restarted.frames.filter((frame) => !frame.replayed).length).toBeGreaterThan(0);
    expect(restarted.problem).toBeNull();
  });

  it("takes a broken last frame for what a kill between a frame's two writes leaves: no damage, nothing committed is lost", () => {
    seedLog(dir(), { walRows: [spendRow('alk_1', 0.1), spendRow('alk_2', 0.1)] });
    const walPath = `${dbPath()}-wal`;
    // The last frame's header went out, its page did not.
    overwrite(walPath, statSync(walPath).size - 4096, Buffer.alloc(4096, 0));
    const scan = scanWal(walPath);
    expect(scan.problem).toBeNull();
    expect(scan.frames.at(-1)?.replayed).toBe(false);
  });

  it('calls a broken header or a broken frame followed by more of the log damage', () => {
    seedLog(dir(), { walRows: [spendRow('alk_1', 0.1), spendRow('alk_2', 0.1)] });
    const walPath = `${dbPath()}-wal`;
    overwrite(walPath, 32 + 24 + 200, Buffer.from('garbage'));
    expect(scanWal(walPath).problem).toMatch(/frame 1 is broken \(its checksum fails\) and frames of the log follow it/);
    overwrite(walPath, 16, Buffer.from('salt'));
    expect(scanWal(walPath).problem).toMatch(/header is damaged/);
  });
});
