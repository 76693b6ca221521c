import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recoverDamagedLog } from '../../../proxy/store/logRecovery.ts';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { seedLog, spendRow } from './damagedLogFixture.ts';
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

describe('a WAL beside the log that belongs to another database', () => {
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
