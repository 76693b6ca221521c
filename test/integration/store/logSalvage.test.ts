import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { importSalvage, salvageLogFiles } from '../../../proxy/store/logSalvage.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { overwrite, pageHolding, seedLog, spendRow } from './damagedLogFixture.ts';
import { tempDirPerTest } from './tempLog.ts';

const dir = tempDirPerTest('airlock-log-salvage-');
const dbPath = (): string => join(dir(), DATABASE_FILE_NAME);

function tableRows(path: string, sql: string): unknown[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/** A large answer (an image as base64) spans overflow pages; its text is findable in the file. */
const LARGE_ANSWER = JSON.stringify({ data: [{ b64_json: `${'A'.repeat(15_000)}middle-of-the-chain${'A'.repeat(15_000)}` }] });

describe('reading rows back from the pages of a log file', () => {
  it('reads every row of a sound file exactly as SQLite does, long ones and keyed answers included', () => {
    const rows = [
      spendRow('alk_a', 0.25),
      spendRow('alk_b', 1e-9, { clientName: null, state: 'in_flight', costCredits: null, ttfbMs: null }),
      spendRow('alk_c', 3, { errorMessage: `a long error ${'e'.repeat(10_000)}`, notes: ['translated'] }),
    ];
    seedLog(dir(), {
      rows,
      answers: [
        { profileId: 'main', idempotencyKey: 'big', body: LARGE_ANSWER },
        { profileId: 'main', idempotencyKey: 'small', body: '{"data":[]}' },
      ],
    });

    const salvage = salvageLogFiles(dbPath(), null, Date.now());
    const fresh = openLogDatabase({ dataDir: join(dir(), 'fresh') });
    try {
      expect(importSalvage(fresh, salvage)).toEqual({ requests: 3, idempotentAnswers: 2 });
    } finally {
      fresh.close();
    }
    const freshPath = join(dir(), 'fresh', DATABASE_FILE_NAME);
    for (const sql of ['SELECT * FROM requests ORDER BY id', 'SELECT * FROM idempotent_answers ORDER BY key_hash']) {
      expect(tableRows(freshPath, sql)).toEqual(tableRows(dbPath(), sql));
    }
  });

  it('keeps a keyed answer whose body cannot be read whole as not kept, so its repeat is refused and never resent', () => {
    seedLog(dir(), { answers: [{ profileId: 'main', idempotencyKey: 'big', body: LARGE_ANSWER }] });
    // An overflow page in the middle of the body's chain now points nowhere: the chain ends early.
    overwrite(dbPath(), pageHolding(dbPath(), 'middle-of-the-chain', 4096), Buffer.alloc(4, 0));

    const [answer] = salvageLogFiles(dbPath(), null, Date.now()).idempotentAnswers.values();
    expect(answer?.slice(4)).toEqual(['not_kept', 200, null, null]);
  });

  it('prefers the version of a row written at its end to the one written while it ran', () => {
    seedLog(dir(), { rows: [spendRow('alk_a', null as unknown as number, { state: 'in_flight' })], walRows: [spendRow('alk_a', 0.5)] });
    const salvage = salvageLogFiles(dbPath(), `${dbPath()}-wal`, Date.now());
    expect(salvage.requests.get('alk_a')?.slice(26)).toEqual([0.5, 'reported', 'done', null, null, null, null, null, null, null]);
  });
});
