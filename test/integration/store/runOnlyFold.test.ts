import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startOfLocalDayMs } from '../../../proxy/core/localPeriods.ts';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { foldRunOnlyLog, RunOnlyFoldError } from '../../../proxy/store/runOnlyFold.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { SqliteIdempotencyStore } from '../../../proxy/store/write/idempotentAnswers.ts';
import { saveUnwrittenSpend, UNWRITTEN_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenSpendFile.ts';
import { tempDirPerTest } from './tempLog.ts';

const dir = tempDirPerTest('airlock-run-only-fold-');
const runOnlyDir = (): string => join(dir(), 'rolled-back');

function logWith(dataDir: string, rows: { id: string; credits: number; state?: string }[]): void {
  mkdirSync(dataDir, { recursive: true });
  const db = openLogDatabase({ dataDir });
  const insert = db.prepare(
    `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits, profile_id)
     VALUES (?, ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', ?, ?, 'work')`,
  );
  for (const row of rows) insert.run(row.id, Date.now(), row.state ?? 'done', row.credits);
  db.close();
}

const openLog = () => createRequestLog({ dataDir: dir(), knownSecrets: () => [], minFreeDiskBytes: 0 });

describe("a roll-back's run-only log, at the update back", () => {
  it('joins the log, with the spend it could not write and its keyed creations, each once; a row left in flight is marked interrupted', async () => {
    logWith(dir(), [{ id: 'alk_own', credits: 1 }]);
    logWith(runOnlyDir(), [
      { id: 'alk_apart_1', credits: 2 },
      { id: 'alk_apart_2', credits: 4, state: 'in_flight' },
    ]);
    // The disk was full for a while then: 8 credits of requests it kept only in its spend record.
    const todayMs = startOfLocalDayMs(Date.now());
    const entry = { dayStartMs: todayMs, profileId: 'work', clientName: null, model: 'gpt-4o', requests: 3, errors: 0, costCredits: 8 };
    const tokens = { unpricedRequests: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
    expect(saveUnwrittenSpend(runOnlyDir(), [{ ...entry, ...tokens, gatewayCost: null, unstatedRequests: 0 }], Date.now())).toBeNull();
    // An image bought then with an idempotency key: its repeat after the update must be answered, not bought again.
    const apart = openLogDatabase({ dataDir: runOnlyDir() });
    const keyed = new SqliteIdempotencyStore(apart, () => []);
    keyed.begin('work', 'image-key', { requestId: 'alk_apart_1', createdAtMs: Date.now(), fingerprint: null });
    keyed.settle('work', 'image-key', { status: 200, headers: {}, body: Buffer.from('{"data":[]}') });
    apart.close();

    expect(foldRunOnlyLog(dir(), runOnlyDir())).toEqual({ requests: 2, costCredits: 6, recoveryMessage: null });
    expect(existsSync(runOnlyDir())).toBe(false);
    const log = openLog();
    try {
      expect(log.spendSince({ sinceMs: todayMs, profileId: 'work' })).toBe(1 + 2 + 4 + 8);
      expect(log.getRequest('alk_apart_2')?.row.state).toBe('interrupted');
      expect(log.idempotencyStore.find('work', 'image-key', 0)).toMatchObject({ state: 'answered', requestId: 'alk_apart_1' });
    } finally {
      await log.close();
    }
    expect(foldRunOnlyLog(dir(), runOnlyDir())).toBeNull();
  });

  it('keeps the folder while it holds what this log cannot take (a spend record of a name taken), and counts its rows once', async () => {
    logWith(dir(), [{ id: 'alk_own', credits: 1 }]);
    logWith(runOnlyDir(), [{ id: 'alk_apart_1', credits: 2 }]);
    writeFileSync(join(dir(), UNWRITTEN_SPEND_FILE_NAME), '{}');
    writeFileSync(join(runOnlyDir(), UNWRITTEN_SPEND_FILE_NAME), '{}');

    expect(foldRunOnlyLog(dir(), runOnlyDir())).toEqual({ requests: 1, costCredits: 2, recoveryMessage: null });
    expect(readdirSync(runOnlyDir())).toContain(UNWRITTEN_SPEND_FILE_NAME);
    expect(foldRunOnlyLog(dir(), runOnlyDir())).toEqual({ requests: 0, costCredits: 0, recoveryMessage: null });
    const db = openLogDatabase({ dataDir: dir() });
    expect(db.prepare('SELECT TOTAL(cost_credits) AS credits FROM requests').get()).toEqual({ credits: 3 });
    db.close();
  });

  it('says what failed on a full disk and that nothing was lost, keeps the folder, and folds it whole once there is room', async () => {
    logWith(dir(), [{ id: 'alk_own', credits: 1 }]);
    logWith(runOnlyDir(), [{ id: 'alk_apart_1', credits: 2 }]);
    // Its rows need pages this log has no room for: a long error message goes to overflow pages.
    const apart = openLogDatabase({ dataDir: runOnlyDir() });
    apart.prepare('UPDATE requests SET error_message = ?').run('x'.repeat(64 * 1024));
    apart.close();
    // As on a full disk: SQLite may not grow this log's file by a single page.
    const fullDisk = ({ dataDir }: { dataDir: string }) => {
      const db = openLogDatabase({ dataDir });
      if (dataDir === dir()) db.exec('PRAGMA max_page_count = 1');
      return db;
    };

    const fold = () => foldRunOnlyLog(dir(), runOnlyDir(), fullDisk);
    expect(fold).toThrow(RunOnlyFoldError);
    expect(fold).toThrow(
      `Airlock could not add the requests it logged while rolled back to an older version (${runOnlyDir()}) to its request log: database or disk is full. The disk holding ${dir()} is full: free space there, then start Airlock again. Nothing was lost: that folder is kept and added at the next start.`,
    );
    expect(existsSync(join(runOnlyDir(), DATABASE_FILE_NAME))).toBe(true);

    expect(foldRunOnlyLog(dir(), runOnlyDir())).toEqual({ requests: 1, costCredits: 2, recoveryMessage: null });
    const db = openLogDatabase({ dataDir: dir() });
    expect(db.prepare('SELECT COUNT(*) AS rows, TOTAL(cost_credits) AS credits FROM requests').get()).toEqual({ rows: 2, credits: 3 });
    db.close();
  });
});
