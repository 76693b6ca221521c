import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { startOfLocalMonthMs } from '../../../proxy/core/localPeriods.ts';
import { DATABASE_FILE_NAME, openLogDatabase, readPragma } from '../../../proxy/store/schema.ts';
import { DEFAULT_RETENTION, runRetention } from '../../../proxy/store/write/retention.ts';
import type { RequestLog } from '../../../proxy/store/requestLog.ts';
import { capturedBodies, endEvent, startEvent, TEST_NOW_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Readable text of about `bytes` bytes (random-looking text would be masked as a possible key). */
function prose(bytes: number, seed: string): string {
  const sentence = `the ${seed} agent asked about the weather and the answer was long. `;
  return sentence.repeat(Math.ceil(bytes / sentence.length)).slice(0, bytes);
}

function emitFinished(temp: TempLog, id: string, startedAtMs: number, bodyBytes = 200): void {
  temp.events.emit(startEvent(id, { startedAtMs }));
  temp.events.emit(endEvent(id, { bodies: capturedBodies({ requestBody: Buffer.from(prose(bodyBytes, id)) }) }));
}

function withBodies(log: RequestLog, ids: string[]): string[] {
  return ids.filter((id) => (log.getRequest(id)?.bodies ?? null) !== null);
}

function present(log: RequestLog, ids: string[]): string[] {
  return ids.filter((id) => log.getRequest(id) !== null);
}

let temp: TempLog;
afterEach(async () => {
  await temp.cleanup();
});

describe('retention', () => {
  it('drops bodies past their age first and whole rows only past theirs', async () => {
    temp = openTempLog({ retention: { bodyMaxAgeDays: 7, maxAgeDays: 30 } });
    emitFinished(temp, 'fresh', TEST_NOW_MS - 1 * DAY_MS);
    emitFinished(temp, 'week-old', TEST_NOW_MS - 8 * DAY_MS);
    emitFinished(temp, 'month-old', TEST_NOW_MS - 31 * DAY_MS);
    await temp.log.flush();

    expect(await temp.log.runRetention()).toMatchObject({ bodiesDeleted: 2, rowsDeleted: 1 });
    expect(present(temp.log, ['fresh', 'week-old', 'month-old'])).toEqual(['fresh', 'week-old']);
    expect(withBodies(temp.log, ['fresh', 'week-old'])).toEqual(['fresh']);
    expect(temp.log.listRequests({ text: 'week-old agent' }).rows).toEqual([]);
    expect(temp.log.listRequests({ text: 'fresh agent' }).rows.map((row) => row.id)).toEqual(['fresh']);
  });

  it('runs on the log thread: while the database is locked, the caller goes on and the rows stay until it is free', async () => {
    temp = openTempLog({ retention: { maxAgeDays: 30 } });
    emitFinished(temp, 'month-old', TEST_NOW_MS - 31 * DAY_MS);
    await temp.log.flush();
    const locker = new DatabaseSync(join(temp.dataDir, DATABASE_FILE_NAME));
    locker.exec('BEGIN IMMEDIATE');
    try {
      const retention = temp.log.runRetention();
      expect(present(temp.log, ['month-old'])).toEqual(['month-old']);
      locker.exec('COMMIT');
      expect(await retention).toMatchObject({ rowsDeleted: 1 });
      expect(present(temp.log, ['month-old'])).toEqual([]);
    } finally {
      if (locker.isTransaction) locker.exec('ROLLBACK');
      locker.close();
    }
  });

  it('never deletes a row still in flight', async () => {
    temp = openTempLog({ retention: { maxAgeDays: 1 } });
    temp.events.emit(startEvent('long-running', { startedAtMs: TEST_NOW_MS - 2 * DAY_MS }));
    await temp.log.flush();
    expect((await temp.log.runRetention())?.rowsDeleted).toBe(0);
    expect(temp.log.getRequest('long-running')?.row.state).toBe('in_flight');
  });

  it('over the size limit removes the oldest bodies before any row', async () => {
    temp = openTempLog();
    const ids = Array.from({ length: 40 }, (_, index) => `r${String(index).padStart(2, '0')}`);
    for (const [index, id] of ids.entries()) emitFinished(temp, id, TEST_NOW_MS - (ids.length - index) * MINUTE_MS, 20_000);
    await temp.log.flush();
    const fullBytes = temp.log.status().dbBytes;
    await temp.log.close();

    const halved = temp.reopen({ retention: { maxTotalBytes: Math.floor(fullBytes / 2) } });
    // Retention at open runs on the log thread, which answers a flush only after it.
    await halved.flush();
    const kept = withBodies(halved, ids);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(ids.length);
    // The bodies left are the newest ones, and every row is still there.
    expect(kept).toEqual(ids.slice(ids.length - kept.length));
    expect(present(halved, ids)).toEqual(ids);
    expect(halved.status().dbBytes).toBeLessThan(fullBytes);
    await halved.close();

    const tiny = temp.reopen({ retention: { maxTotalBytes: 1 } });
    await tiny.flush();
    expect(withBodies(tiny, ids)).toEqual([]);
    // Rows of this month hold its spend, which monthly caps count: the size limit does not take them.
    expect(present(tiny, ids)).toEqual(ids);
  });

  it("keeps every row of the current local month, past their age or the size limit, so the month's spend stays whole", async () => {
    // The 31st of a 31-day month: 30 days back is still this month, and a restart seeds caps from the log.
    const nowMs = new Date(2026, 0, 31, 12, 0).getTime();
    const firstOfMonthMs = new Date(2026, 0, 1, 0, 30).getTime();
    const lastMonthMs = new Date(2025, 11, 31, 23, 30).getTime();
    temp = openTempLog({ now: () => nowMs, retention: { maxAgeDays: 30 } });
    emitFinished(temp, 'first-of-month', firstOfMonthMs);
    emitFinished(temp, 'last-month', lastMonthMs);
    await temp.log.flush();

    expect(await temp.log.runRetention()).toMatchObject({ rowsDeleted: 1 });
    expect(present(temp.log, ['first-of-month', 'last-month'])).toEqual(['first-of-month']);
    expect(temp.log.spendSince({ sinceMs: startOfLocalMonthMs(nowMs) })).toBeCloseTo(0.25, 12);
  });

  it('gives the space of what it deleted back to the disk when the disk is full, and of what an earlier pass could not', async () => {
    temp = openTempLog();
    const ids = Array.from({ length: 60 }, (_, index) => `r${String(index).padStart(2, '0')}`);
    // The oldest sixth is 8 days old: past the body age.
    for (const [index, id] of ids.entries()) emitFinished(temp, id, TEST_NOW_MS - (index < 10 ? 8 * DAY_MS : MINUTE_MS) + index, 20_000);
    await temp.log.flush();
    await temp.log.close();
    const logPath = join(temp.dataDir, DATABASE_FILE_NAME);
    const fullBytes = statSync(logPath).size;
    const policy = { ...DEFAULT_RETENTION, bodyMaxAgeDays: 7 };
    const db = openLogDatabase({ dataDir: temp.dataDir });
    try {
      // No room to rewrite the index nor to move pages: the deletes commit, the space stays in the file.
      expect(() =>
        runRetention(fullDisk(db, ["'optimize'", 'incremental_vacuum']), policy, TEST_NOW_MS, startOfLocalMonthMs(TEST_NOW_MS)),
      ).toThrow('database or disk is full');
      expect(statSync(logPath).size).toBe(fullBytes);
      const freedBytes = Number(readPragma(db, 'freelist_count')) * Number(readPragma(db, 'page_size'));
      expect(freedBytes).toBeGreaterThan(0);
      // The next pass deletes nothing new, and still hands that space back, with no room for the index rewrite either.
      expect(runRetention(fullDisk(db, ["'optimize'"]), policy, TEST_NOW_MS, startOfLocalMonthMs(TEST_NOW_MS))).toMatchObject({
        bodiesDeleted: 0,
      });
      expect(Number(readPragma(db, 'freelist_count'))).toBe(0);
      expect(statSync(logPath).size).toBeLessThanOrEqual(fullBytes - freedBytes);
    } finally {
      db.close();
    }
  });
});

/** The connection as on a full disk: statements holding one of `failing` need room there is not. */
function fullDisk(db: DatabaseSync, failing: string[]): DatabaseSync {
  return new Proxy(db, {
    get(target, name) {
      if (name === 'exec') {
        return (sql: string) => {
          if (failing.some((part) => sql.includes(part)))
            throw Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 });
          target.exec(sql);
        };
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
