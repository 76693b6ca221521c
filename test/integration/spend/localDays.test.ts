import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInTimeZone } from '../../support/timeZoneChild.ts';
import type { SpendReadings, TimedSpend } from './fixtures/localTimeSpend.ts';

const SCENARIOS = fileURLToPath(new URL('./fixtures/localTimeSpend.ts', import.meta.url));

function readings(timeZone: string, input: { requests: TimedSpend[]; readAt: string; range: '7d' | '30d' }): Promise<SpendReadings> {
  return runInTimeZone<SpendReadings>(SCENARIOS, timeZone, 'spendReadings', input);
}

/**
 * A request's spend belongs to the local day (and month) it started on, for every reader: the
 * request list, the chart and the exports file a request by its start, and the cap that admitted
 * it was the one of that day. Live totals, totals rebuilt from the log at a restart and the Spend
 * screen must then agree.
 */
describe('spend of a request that spans midnight', () => {
  it.each([
    {
      name: 'a month end (Jan 31 → Feb 1, New York)',
      timeZone: 'America/New_York',
      spanning: { start: '2026-01-31T23:59:30', end: '2026-02-01T00:00:40', credits: 5 },
      after: { start: '2026-02-01T00:10:00', end: '2026-02-01T00:10:05', credits: 2 },
      readAt: '2026-02-01T09:00:00',
      days: { '2026-01-31': 5, '2026-02-01': 2 },
      month: 2,
    },
    {
      name: 'a year end in a zone 5:45 ahead of UTC (Dec 31 → Jan 1, Kathmandu)',
      timeZone: 'Asia/Kathmandu',
      spanning: { start: '2026-12-31T23:58:00', end: '2027-01-01T00:03:00', credits: 5 },
      after: { start: '2027-01-01T00:30:00', end: '2027-01-01T00:31:00', credits: 2 },
      readAt: '2027-01-01T10:00:00',
      days: { '2026-12-31': 5, '2027-01-01': 2 },
      month: 2,
    },
    {
      name: 'a leap day (Feb 28 → Feb 29, Berlin)',
      timeZone: 'Europe/Berlin',
      spanning: { start: '2028-02-28T23:59:00', end: '2028-02-29T00:01:00', credits: 5 },
      after: { start: '2028-02-29T08:00:00', end: '2028-02-29T08:00:01', credits: 2 },
      readAt: '2028-02-29T12:00:00',
      days: { '2028-02-28': 5, '2028-02-29': 2 },
      month: 7,
    },
  ])('counts on the day it started, live and after a restart: $name', async ({ timeZone, spanning, after, readAt, days, month }) => {
    const read = await readings(timeZone, { requests: [spanning, after], readAt, range: '7d' });
    const today = { dayCredits: 2, monthCredits: month };
    expect(read.live).toEqual(today);
    expect(read.rebuilt).toEqual(today);
    expect(read.screenToday).toBe(2);
    expect(read.budgetSpent).toEqual({ daily: 2, monthly: month });
    expect(read.chartDays).toEqual(days);
  });
});
