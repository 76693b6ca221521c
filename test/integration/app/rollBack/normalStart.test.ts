import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RUN_ONLY_LOG_DIR_NAME } from '../../../../proxy/app/runOnlyLog.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../../proxy/store/schema.ts';
import { scanWal } from '../../../../proxy/store/sqliteFile.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { seedLog, spendRow } from '../../store/damagedLogFixture.ts';
import { NEWER_SCHEMA } from './newerLogFiles.ts';

// Counts the WAL's scans: each reads the whole file, and after a crash it can be large.
vi.mock('../../../../proxy/store/sqliteFile.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../../proxy/store/sqliteFile.ts')>();
  return { ...actual, scanWal: vi.fn(actual.scanWal) };
});

let dataDir: string;
let airlock: Airlock | undefined;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-normal-start-'));
});
afterEach(async () => {
  await airlock?.stop();
  airlock = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async (): Promise<Airlock> => {
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({}) });
  return airlock;
};

describe('a start with no roll-back at all (review of the roll-back change)', () => {
  it("takes a newer log's WAL copied beside this log for another database's, not for a newer log", async () => {
    seedLog(dataDir, { rows: [spendRow('alk_mine', 0.4)] });
    rmSync(path.join(dataDir, `${DATABASE_FILE_NAME}-wal`), { force: true });
    // Another data directory's log, a newer Airlock's, killed with its new schema in its WAL only.
    const other = path.join(dataDir, 'other');
    const db = openLogDatabase({ dataDir: other });
    db.exec('PRAGMA wal_autocheckpoint = 0');
    db.exec(`PRAGMA user_version = ${NEWER_SCHEMA}`);
    copyFileSync(path.join(other, `${DATABASE_FILE_NAME}-wal`), path.join(dataDir, `${DATABASE_FILE_NAME}-wal`));
    db.close();
    rmSync(other, { recursive: true, force: true });

    const started = await start();
    expect(started.notices.join('\n')).toContain('belongs to another database');
    expect(started.notices.join('\n')).not.toContain('newer Airlock');
    expect(existsSync(path.join(dataDir, RUN_ONLY_LOG_DIR_NAME))).toBe(false);
    expect(started.log.spendSince({ sinceMs: 0 })).toBeCloseTo(0.4, 9);
  });

  it('reads the WAL a kill left once, as the start did before', async () => {
    seedLog(dataDir, { rows: [spendRow('alk_1', 0.4)], walRows: [spendRow('alk_2', 0.4), spendRow('alk_3', 0.4)] });
    vi.mocked(scanWal).mockClear();
    const started = await start();
    expect(started.log.spendSince({ sinceMs: 0 })).toBeCloseTo(1.2, 9);
    expect(scanWal).toHaveBeenCalledTimes(1);
  });
});
