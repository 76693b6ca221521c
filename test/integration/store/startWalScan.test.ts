import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { recoverDamagedLog } from '../../../proxy/store/logRecovery.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { scanWal } from '../../../proxy/store/sqliteFile.ts';
import { overwrite, seedLog, spendRow } from './damagedLogFixture.ts';
import { tempDirPerTest } from './tempLog.ts';

// Counts the WAL's scans: each reads the whole file, and after a crash it can be large.
vi.mock('../../../proxy/store/sqliteFile.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../proxy/store/sqliteFile.ts')>();
  return { ...actual, scanWal: vi.fn(actual.scanWal) };
});

const dir = tempDirPerTest('airlock-start-wal-scan-');

describe('the start check of a log a kill left with its WAL', () => {
  it('reads the WAL once for both its owner and its checksums', () => {
    seedLog(dir(), { rows: [spendRow('alk_1', 0.4)], walRows: [spendRow('alk_2', 0.4), spendRow('alk_3', 0.4)] });
    vi.mocked(scanWal).mockClear();
    expect(recoverDamagedLog(dir())).toBeNull();
    expect(scanWal).toHaveBeenCalledTimes(1);
  });

  it('reads it once in all where it is damaged and its rows are read back from it', () => {
    seedLog(dir(), { rows: [spendRow('alk_1', 0.4)], walRows: [spendRow('alk_2', 0.4), spendRow('alk_3', 0.4)] });
    // The second frame of the first commit: SQLite would drop every commit after it.
    const pageBytes = 4096;
    overwrite(join(dir(), `${DATABASE_FILE_NAME}-wal`), 32 + (24 + pageBytes) + 24 + 100, Buffer.alloc(64, 0xab));
    vi.mocked(scanWal).mockClear();
    const report = recoverDamagedLog(dir());
    expect(report?.reason).toMatch(/write-ahead log .* is damaged/);
    expect(report?.recoveredRequests).toBe(3);
    expect(scanWal).toHaveBeenCalledTimes(1);
  });
});
