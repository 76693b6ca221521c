import { afterEach, describe, expect, it } from 'vitest';
import { capturedBodies, endEvent, startEvent, TEST_NOW_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../../../proxy/core/localPeriods.ts';
import { saveUnwrittenSpend } from '../../../proxy/store/write/unwrittenSpendFile.ts';

const DAY_MS = 86_400_000;

let temp: TempLog | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

/**
 * A request of 3 credits written while the machine's clock said `startedAtMs`; `gatewayDateMs` is
 * the gateway's clock in its answer's Date header (none when absent).
 */
function emitFinished(log: TempLog, id: string, startedAtMs: number, gatewayDateMs?: number): void {
  log.events.emit(startEvent(id, { startedAtMs, profileId: 'work' }));
  const responseHeaders: Record<string, string> = { 'content-type': 'application/json' };
  if (gatewayDateMs !== undefined) responseHeaders.date = new Date(gatewayDateMs).toUTCString();
  log.events.emit(endEvent(id, { costCredits: 3, bodies: capturedBodies({ responseHeaders }) }));
}

describe('rows dated after the log opens (the clock was ahead when they were written)', () => {
  it('count as of the start that finds them: today and this month once, not every day until their date', async () => {
    temp = openTempLog({ now: () => TEST_NOW_MS + 3 * DAY_MS });
    emitFinished(temp, 'ahead', TEST_NOW_MS + 3 * DAY_MS);
    await temp.log.flush();
    await temp.log.close();

    // The clock was set right: the next start is three days before the row's date.
    const today = temp.reopen({ now: () => TEST_NOW_MS });
    const dayStartMs = startOfLocalDayMs(TEST_NOW_MS);
    expect(today.spendSince({ sinceMs: dayStartMs, profileId: 'work' })).toBe(3);
    expect(today.spendSince({ sinceMs: startOfLocalMonthMs(TEST_NOW_MS), profileId: 'work' })).toBe(3);
    // The status bar, the Spend screen and its chart read up to now: the row is there, in today's bucket.
    expect(today.totals({ fromMs: dayStartMs, toMs: TEST_NOW_MS + 1 }).costCredits).toBe(3);
    const perDay = await today.reads.spendByDay({ fromMs: dayStartMs, toMs: TEST_NOW_MS + 1, groupBy: null });
    expect(perDay.map((row) => row.costCredits)).toEqual([3]);
    const row = today.getRequest('ahead')?.row;
    expect(row?.startedAtMs).toBe(TEST_NOW_MS);
    expect(row?.notes.at(-1)).toMatch(/dated .* when written, after the clock at a later start: counted from then/);
    expect(today.startNotices.join(' ')).toMatch(/1 request was dated after now/);
    await today.close();

    const nextDay = temp.reopen({ now: () => TEST_NOW_MS + DAY_MS });
    expect(nextDay.spendSince({ sinceMs: startOfLocalDayMs(TEST_NOW_MS + DAY_MS), profileId: 'work' })).toBe(0);
    expect(nextDay.startNotices).toEqual([]);
  });

  it('written when the gateway agreed with the clock are left at their date: the clock is behind at this start, not ahead then', async () => {
    // Written with a right clock (the gateway's Date says so), two hours after the next start's clock.
    const writtenAtMs = TEST_NOW_MS + 2 * 3_600_000;
    temp = openTempLog({ now: () => writtenAtMs });
    emitFinished(temp, 'right', writtenAtMs, writtenAtMs + 1_000);
    await temp.log.flush();
    await temp.log.close();

    // A start before the clock is set right (no network yet at login, an RTC kept in local time by a second OS).
    const behind = temp.reopen({ now: () => TEST_NOW_MS });
    expect(behind.getRequest('right')?.row.startedAtMs).toBe(writtenAtMs);
    expect(behind.startNotices.join(' ')).toMatch(/the clock seems behind/);
    await behind.close();

    // Once the clock is right the request is where it was made: today's spend, for today's cap.
    const right = temp.reopen({ now: () => writtenAtMs + 60_000 });
    expect(right.spendSince({ sinceMs: writtenAtMs - 1, profileId: 'work' })).toBe(3);
    expect(right.startNotices).toEqual([]);
  });

  it('written when the gateway was behind the clock are dated at the start that finds them', async () => {
    temp = openTempLog({ now: () => TEST_NOW_MS + 3 * DAY_MS });
    emitFinished(temp, 'ahead', TEST_NOW_MS + 3 * DAY_MS, TEST_NOW_MS + 1_000);
    await temp.log.flush();
    await temp.log.close();
    const today = temp.reopen({ now: () => TEST_NOW_MS });
    expect(today.getRequest('ahead')?.row.startedAtMs).toBe(TEST_NOW_MS);
  });

  it("date an earlier run's saved spend for a day ahead at this start too, once it is written as a summary row", async () => {
    temp = openTempLog();
    await temp.log.close();
    const aheadDayMs = startOfLocalDayMs(TEST_NOW_MS + 2 * DAY_MS);
    saveUnwrittenSpend(
      temp.dataDir,
      [
        {
          dayStartMs: aheadDayMs,
          profileId: 'work',
          clientName: null,
          model: 'gpt-4o',
          requests: 2,
          errors: 0,
          costCredits: 5,
          unpricedRequests: 0,
          inputTokens: 20,
          outputTokens: 4,
          cachedInputTokens: 0,
          reasoningTokens: 0,
          gatewayCost: null,
          unstatedRequests: 0,
        },
      ],
      aheadDayMs,
    );
    const today = temp.reopen({ now: () => TEST_NOW_MS });
    expect(today.totals({ fromMs: startOfLocalDayMs(TEST_NOW_MS), toMs: TEST_NOW_MS + 1 }).costCredits).toBe(5);
    await today.close();
    const nextDay = temp.reopen({ now: () => TEST_NOW_MS + DAY_MS });
    expect(nextDay.spendSince({ sinceMs: startOfLocalDayMs(TEST_NOW_MS + DAY_MS), profileId: 'work' })).toBe(0);
  });
});
