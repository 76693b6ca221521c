import { describe, expect, it } from 'vitest';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../../../proxy/core/localPeriods.ts';
import { SpendLedger, spentSinceFromLog, type SpendScope } from '../../../proxy/spend/spendLedger.ts';

const local = (month: number, day: number, hour = 12, minute = 0): number => new Date(2026, month, day, hour, minute).getTime();
const work: SpendScope = { kind: 'profile', profileId: 'work' };
const cursor: SpendScope = { kind: 'client', clientName: 'cursor' };

describe('local period starts', () => {
  it.each([
    { at: local(0, 15, 13, 30), day: local(0, 15, 0), month: local(0, 1, 0) },
    { at: local(2, 1, 0, 0), day: local(2, 1, 0), month: local(2, 1, 0) },
    { at: local(11, 31, 23, 59), day: local(11, 31, 0), month: local(11, 1, 0) },
  ])('$at', ({ at, day, month }) => {
    expect(startOfLocalDayMs(at)).toBe(day);
    expect(startOfLocalMonthMs(at)).toBe(month);
  });
});

describe('SpendLedger', () => {
  it.each([
    { name: 'no fallback: all the profile’s', leftSpend: undefined, work: 3, backup: 0 },
    {
      name: "runs left on 'work' before 'backup' answered: theirs",
      leftSpend: [{ profileId: 'work', costCredits: 1 }],
      work: 1,
      backup: 2,
    },
    {
      name: "only the left runs cost anything: 'backup' is charged nothing",
      leftSpend: [{ profileId: 'work', costCredits: 3 }],
      work: 3,
      backup: 0,
    },
  ])('records a request to its client whole and to each profile its own part: $name', ({ leftSpend, work: workCredits, backup }) => {
    const ledger = new SpendLedger();
    const atMs = local(0, 15, 9);
    ledger.record({
      profileId: leftSpend ? 'backup' : 'work',
      clientName: 'cursor',
      costCredits: 3,
      atMs,
      ...(leftSpend ? { leftSpend } : {}),
    });
    expect(ledger.totals(work, atMs).dayCredits).toBeCloseTo(workCredits, 12);
    expect(ledger.totals({ kind: 'profile', profileId: 'backup' }, atMs).dayCredits).toBeCloseTo(backup, 12);
    expect(ledger.totals(cursor, atMs).dayCredits).toBeCloseTo(3, 12);
  });

  it('seeds from the log with the day and month starts', () => {
    const asked: { scope: SpendScope; sinceMs: number }[] = [];
    const ledger = new SpendLedger();
    ledger.seed(
      [work],
      (scope, sinceMs) => {
        asked.push({ scope, sinceMs });
        if (sinceMs === local(0, 15, 0)) return 3;
        return sinceMs === local(0, 1, 0) ? 40 : 0;
      },
      local(0, 15, 9),
    );
    // The third: whether the log dates any spend after now (a start with its clock behind).
    expect(asked).toEqual([
      { scope: work, sinceMs: local(0, 15, 0) },
      { scope: work, sinceMs: local(0, 1, 0) },
      { scope: work, sinceMs: local(0, 15, 9) + 1 },
    ]);
    expect(ledger.totals(work, local(0, 15, 10))).toEqual({ dayCredits: 3, monthCredits: 40 });
  });

  it.each([
    { scope: work, query: { sinceMs: 5, profileId: 'work' } },
    { scope: cursor, query: { sinceMs: 5, clientName: 'cursor' } },
  ])('asks the log per $scope.kind', ({ scope, query }) => {
    const queries: unknown[] = [];
    const spentSince = spentSinceFromLog((asked) => {
      queries.push(asked);
      return 1.5;
    });
    expect(spentSince(scope, 5)).toBe(1.5);
    expect(queries).toEqual([query]);
  });

  it('records per profile and per client; unpriced and anonymous add nothing to clients', () => {
    const ledger = new SpendLedger();
    ledger.record({ profileId: 'work', clientName: 'cursor', costCredits: 0.1, atMs: local(0, 15) });
    ledger.record({ profileId: 'work', clientName: 'cursor', costCredits: 0.2, atMs: local(0, 15) });
    ledger.record({ profileId: 'work', clientName: null, costCredits: 1, atMs: local(0, 15) });
    ledger.record({ profileId: 'work', clientName: 'cursor', costCredits: null, atMs: local(0, 15) });
    expect(ledger.totals(work, local(0, 15)).dayCredits).toBeCloseTo(1.3, 15);
    expect(ledger.totals(work, local(0, 15)).monthCredits).toBeCloseTo(1.3, 15);
    expect(ledger.totals(cursor, local(0, 15)).dayCredits).toBeCloseTo(0.3, 15);
    expect(ledger.totals(cursor, local(0, 15)).monthCredits).toBeCloseTo(0.3, 15);
    expect(ledger.totals({ kind: 'profile', profileId: 'other' }, local(0, 15))).toEqual({ dayCredits: 0, monthCredits: 0 });
  });

  it.each([
    { name: 'same day', readAt: local(0, 15, 23, 59), totals: { dayCredits: 2, monthCredits: 2 } },
    { name: 'next day keeps the month', readAt: local(0, 16, 0, 0), totals: { dayCredits: 0, monthCredits: 2 } },
    { name: 'next month resets both', readAt: local(1, 1, 0, 0), totals: { dayCredits: 0, monthCredits: 0 } },
  ])('rolls over by local time: $name', ({ readAt, totals }) => {
    const ledger = new SpendLedger();
    ledger.record({ profileId: 'work', clientName: null, costCredits: 2, atMs: local(0, 15, 8) });
    expect(ledger.totals(work, readAt)).toEqual(totals);
  });

  it('after a rollover new spend starts the new day; a late record of yesterday counts to the month only', () => {
    const ledger = new SpendLedger();
    ledger.record({ profileId: 'work', clientName: null, costCredits: 2, atMs: local(0, 15, 23) });
    ledger.record({ profileId: 'work', clientName: null, costCredits: 1, atMs: local(0, 16, 1) });
    ledger.record({ profileId: 'work', clientName: null, costCredits: 4, atMs: local(0, 15, 23, 59) });
    expect(ledger.totals(work, local(0, 16, 2))).toEqual({ dayCredits: 1, monthCredits: 7 });
  });

  it('a clock stepping back does not bring back an earlier total', () => {
    const ledger = new SpendLedger();
    ledger.record({ profileId: 'work', clientName: null, costCredits: 2, atMs: local(0, 15) });
    expect(ledger.totals(work, local(0, 16))).toEqual({ dayCredits: 0, monthCredits: 2 });
    expect(ledger.totals(work, local(0, 15))).toEqual({ dayCredits: 0, monthCredits: 2 });
  });

  it.each([
    { name: 'a day', ahead: local(0, 16, 10), corrected: local(0, 15, 10), nextDay: local(0, 16, 0) },
    { name: 'into the next month', ahead: local(1, 1, 10), corrected: local(0, 31, 10), nextDay: local(1, 1, 0) },
  ])('a clock set back $name after spending keeps that spend as of now and counts new spend', ({ ahead, corrected, nextDay }) => {
    const ledger = new SpendLedger();
    ledger.record({ profileId: 'work', clientName: null, costCredits: 2, atMs: ahead });
    expect(ledger.totals(work, corrected)).toEqual({ dayCredits: 2, monthCredits: 2 });
    ledger.record({ profileId: 'work', clientName: null, costCredits: 1, atMs: corrected + 60_000 });
    expect(ledger.totals(work, corrected + 120_000)).toEqual({ dayCredits: 3, monthCredits: 3 });
    expect(ledger.totals(work, nextDay).dayCredits).toBe(0);
  });

  it('counts a million costs under a millionth of a credit each (they were rounded away)', () => {
    const ledger = new SpendLedger();
    for (let request = 0; request < 1_000_000; request += 1) {
      ledger.record({ profileId: 'work', clientName: 'cursor', costCredits: 4e-7, atMs: local(0, 15) });
    }
    expect(ledger.totals(work, local(0, 15)).dayCredits).toBeCloseTo(0.4, 9);
    expect(ledger.totals(cursor, local(0, 15)).monthCredits).toBeCloseTo(0.4, 9);
  });
});

describe('SpendLedger: a start with the clock behind (set right while running)', () => {
  /** The log's rows: spend by local start time, as `spendSince` sums it (no end: rows after now count). */
  const rows = [
    { atMs: local(0, 14, 21), credits: 2 },
    // Made after midnight with a right clock, before this start, whose clock says 22:00 the day before.
    { atMs: local(0, 15, 1), credits: 5 },
  ];
  const spentSince = (_scope: SpendScope, sinceMs: number): number =>
    rows.filter((row) => row.atMs >= sinceMs).reduce((sum, row) => sum + row.credits, 0);

  it('the day the clock is set forward into keeps the spend the log dates in it', () => {
    const ledger = new SpendLedger();
    ledger.seed([work], spentSince, local(0, 14, 22));
    // Meanwhile the rows dated after now count toward the clock's today: a cap refuses early, never late.
    expect(ledger.totals(work, local(0, 14, 22)).dayCredits).toBe(7);
    // The network comes up and the clock is set to 01:30: today already holds the 5 credits of 01:00.
    expect(ledger.totals(work, local(0, 15, 1, 30))).toEqual({ dayCredits: 5, monthCredits: 7 });
    ledger.record({ profileId: 'work', clientName: null, costCredits: 1, atMs: local(0, 15, 1, 40) });
    expect(ledger.totals(work, local(0, 15, 1, 45)).dayCredits).toBe(6);
    // The next midnight starts from nothing again: what the start found ahead is counted once.
    expect(ledger.totals(work, local(0, 16, 0, 10)).dayCredits).toBe(0);
  });

  it('a month the clock is set forward into keeps its spend too', () => {
    const monthRows = [{ atMs: local(1, 1, 1), credits: 4 }];
    const since = (_scope: SpendScope, sinceMs: number): number =>
      monthRows.filter((row) => row.atMs >= sinceMs).reduce((sum, row) => sum + row.credits, 0);
    const ledger = new SpendLedger();
    ledger.seed([work], since, local(0, 31, 22));
    expect(ledger.totals(work, local(1, 1, 2))).toEqual({ dayCredits: 4, monthCredits: 4 });
  });

  it('a clock behind by days that passes a midnight before it is set right still finds the day it is set to', () => {
    // Made on the 16th and 17th with a right clock; this start's clock says the 14th.
    const aheadRows = [
      { atMs: local(0, 16, 9), credits: 5 },
      { atMs: local(0, 17, 1), credits: 3 },
    ];
    const since = (_scope: SpendScope, sinceMs: number): number =>
      aheadRows.filter((row) => row.atMs >= sinceMs).reduce((sum, row) => sum + row.credits, 0);
    const ledger = new SpendLedger();
    ledger.seed([work], since, local(0, 14, 23));
    // No network yet: the wrong clock goes past its own midnight, and the rows still count toward its today.
    expect(ledger.totals(work, local(0, 15, 0, 30)).dayCredits).toBe(8);
    // Set right on the 17th: today holds the 3 credits of 01:00, the month all 8.
    expect(ledger.totals(work, local(0, 17, 2))).toEqual({ dayCredits: 3, monthCredits: 8 });
  });

  it('a log that cannot be read at the roll fails no request: the new day starts from nothing, as without rows ahead', () => {
    let readable = true;
    const since = (scope: SpendScope, sinceMs: number): number => {
      if (!readable) throw new Error('database disk image is malformed');
      return spentSince(scope, sinceMs);
    };
    const ledger = new SpendLedger();
    ledger.seed([work], since, local(0, 14, 22));
    readable = false;
    expect(ledger.totals(work, local(0, 15, 1, 30))).toEqual({ dayCredits: 0, monthCredits: 7 });
    // The next day rolls too: the failed read left no day half rolled.
    expect(ledger.totals(work, local(0, 16, 1)).dayCredits).toBe(0);
  });
});

describe('SpendLedger.seedNew', () => {
  it('seeds a scope added since the start from the log, and leaves one it holds as counted', () => {
    const now = local(0, 15, 13);
    const ledger = new SpendLedger();
    ledger.seed([work], () => 0, now);
    ledger.record({ profileId: 'work', clientName: null, costCredits: 2, atMs: now });
    // The log has not written this run's 2 credits yet; it holds 5 of cursor's from before the start.
    const logSpend = (scope: SpendScope): number => (scope.kind === 'client' ? 5 : 0);
    ledger.seedNew([work, cursor], logSpend, now);
    expect(ledger.totals(work, now)).toEqual({ dayCredits: 2, monthCredits: 2 });
    expect(ledger.totals(cursor, now)).toEqual({ dayCredits: 5, monthCredits: 5 });
  });
});
