import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { capturedBodies, endEvent, startEvent, TEST_NOW_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

const MAX_DB_BYTES = 512 * 1024;
const BODY_BYTES = 30_000;
/** Far more than fits: the loop below must hit the limit long before this. */
const MAX_REQUESTS = 200;

function emitWithBody(temp: TempLog, id: string, index: number): void {
  temp.events.emit(startEvent(id, { startedAtMs: TEST_NOW_MS - 10_000 + index }));
  const text = `request ${id} asks a long question about logs. `.repeat(BODY_BYTES / 40);
  temp.events.emit(endEvent(id, { bodies: capturedBodies({ requestBody: Buffer.from(text) }) }));
}

function integrityCheck(dataDir: string): unknown {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    return db.prepare('PRAGMA integrity_check').get();
  } finally {
    db.close();
  }
}

let temp: TempLog;
afterEach(async () => {
  await temp.cleanup();
});

describe('full disk', () => {
  it('stops logging bodies with a visible reason, keeps logging rows, and never fails a request', async () => {
    const errors: unknown[] = [];
    // max_page_count makes SQLite itself answer SQLITE_FULL, exactly as on a full disk.
    temp = openTempLog({
      maxDbBytes: MAX_DB_BYTES,
      retention: { maxTotalBytes: MAX_DB_BYTES / 4 },
      onError: (error) => errors.push(error),
    });
    expect(temp.log.status()).toMatchObject({ bodiesDisabled: false, reason: null });

    let written = 0;
    while (!temp.log.status().bodiesDisabled && written < MAX_REQUESTS) {
      // The event bus rethrows listener errors: emitting proves the log never throws into forwarding.
      emitWithBody(temp, `full-${written}`, written);
      await temp.log.flush();
      written += 1;
    }
    const status = temp.log.status();
    expect(status.bodiesDisabled).toBe(true);
    expect(status.reason).toMatch(/bodies are no longer logged/);
    expect(written).toBeLessThan(MAX_REQUESTS);
    // The batch that hit the limit still has its row, without bodies.
    const lastId = `full-${written - 1}`;
    expect(temp.log.getRequest(lastId)).toMatchObject({ row: { state: 'done' }, bodies: null });
    // The request detail says why its bodies are missing, as it does when the log fell behind.
    expect(temp.log.getRequest(lastId)?.row.notes).toContainEqual(expect.stringMatching(/^Bodies not kept: .*disk/));

    emitWithBody(temp, 'after-full', written);
    await temp.log.flush();
    expect(temp.log.getRequest('after-full')).toMatchObject({ row: { state: 'done', status: 200 }, bodies: null });
    expect(temp.log.getRequest('after-full')?.row.notes).toContainEqual(expect.stringMatching(/^Bodies not kept: .*disk/));
    expect(errors).toEqual([]);
    expect(integrityCheck(temp.dataDir)).toEqual({ integrity_check: 'ok' });

    // Retention frees space under the size limit, and bodies come back.
    await temp.log.runRetention();
    expect(temp.log.status()).toMatchObject({ bodiesDisabled: false, reason: null });
    emitWithBody(temp, 'after-retention', written + 1);
    await temp.log.flush();
    expect(temp.log.getRequest('after-retention')?.bodies?.requestBody).toContain('after-retention');
  });

  it('turns bodies off when free disk space is under the floor', async () => {
    temp = openTempLog({ minFreeDiskBytes: Number.MAX_SAFE_INTEGER });
    expect(temp.log.status()).toMatchObject({
      bodiesDisabled: true,
      reason: expect.stringMatching(/Free space on the disk fell below \d+ MB/),
    });
    emitWithBody(temp, 'low-disk', 0);
    await temp.log.flush();
    expect(temp.log.getRequest('low-disk')).toMatchObject({ row: { state: 'done' }, bodies: null });
    expect(temp.log.getRequest('low-disk')?.row.notes).toEqual([
      expect.stringMatching(
        /^Bodies not kept: Free space on the disk fell below \d+ MB: request bodies are not logged until \d+ MB is free/,
      ),
    ]);
  });
});
