import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NoticeBoard, requestLogFailureCause, requestLogNoticeKind } from '../../../proxy/app/noticeBoard.ts';
import { openSeededLog } from '../../../proxy/app/seededLog.ts';
import type { RequestLog } from '../../../proxy/store/requestLog.ts';

let dataDir = '';
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-seeded-log-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** SQLite's words for a page damaged at rest, as the seed's first read meets them. */
const DAMAGE = Object.assign(new Error('database disk image is malformed'), { errcode: 11 });

/**
 * A log whose reads tell `onError` of damage and throw (as the real log's read wrapper does), or a
 * sound one that tells of `failureAtOpen`, a failure of its own at open.
 */
function stubLog(onError: (error: unknown) => void, damaged: boolean, failureAtOpen: Error | null): RequestLog {
  if (failureAtOpen !== null) onError(failureAtOpen);
  return {
    startNotices: [],
    close: async () => {},
    spendSince: () => {
      if (!damaged) return 0;
      onError(DAMAGE);
      throw DAMAGE;
    },
  } as unknown as RequestLog;
}

describe('the seeded log retry after damage the seed met', () => {
  it('withdraws the damage notice it mended, not a failure the fresh log told at its own open', async () => {
    const notices = new NoticeBoard({ knownSecrets: () => [] });
    let opens = 0;
    const opened = await openSeededLog({
      dataDir,
      open: (onError) => {
        opens += 1;
        return opens === 1 ? stubLog(onError, true, null) : stubLog(onError, false, new Error('disk I/O error'));
      },
      seed: (log) => void log.spendSince({ sinceMs: 0 }),
      tellFailure: (error) => void notices.report(requestLogNoticeKind(error), requestLogFailureCause(error)),
      notices,
    });
    expect(opens).toBe(2);
    await opened.log.close();
    expect(notices.list().map((notice) => notice.cause)).toEqual(['request log: disk I/O error']);
  });

  it('withdraws the damage notice when nothing else was told', async () => {
    const notices = new NoticeBoard({ knownSecrets: () => [] });
    let opens = 0;
    await openSeededLog({
      dataDir,
      open: (onError) => {
        opens += 1;
        return stubLog(onError, opens === 1, null);
      },
      seed: (log) => void log.spendSince({ sinceMs: 0 }),
      tellFailure: (error) => void notices.report(requestLogNoticeKind(error), requestLogFailureCause(error)),
      notices,
    });
    expect(notices.list()).toEqual([]);
  });
});
