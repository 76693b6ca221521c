import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInTimeZone } from '../../support/timeZoneChild.ts';
import type { SpendRange } from '../../../proxy/contracts/spend.ts';
import type { SpendReadings, TimedSpend } from './fixtures/localTimeSpend.ts';

const SCENARIOS = fileURLToPath(new URL('./fixtures/localTimeSpend.ts', import.meta.url));

function readings(timeZone: string, input: { requests: TimedSpend[]; readAt: string; range: SpendRange }): Promise<SpendReadings> {
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

/**
 * The chart files each request on its own local day and hour, by the zone's rules on that date:
 * one UTC offset for the whole range (today's) moved spend across midnight on the far side of a
 * clock change, and put today's spend before a change in the wrong hour.
 */
describe('the Spend screen across a clock change', () => {
  it.each([
    {
      name: 'the 23-hour day in Berlin, read after the change',
      timeZone: 'Europe/Berlin',
      requests: [
        { start: '2026-03-28T00:20:00', end: '2026-03-28T00:20:01', credits: 1 },
        { start: '2026-03-28T23:40:00', end: '2026-03-28T23:40:01', credits: 2 },
        { start: '2026-03-29T01:30:00', end: '2026-03-29T01:30:01', credits: 4 },
        { start: '2026-03-29T03:10:00', end: '2026-03-29T03:10:01', credits: 8 },
      ],
      readAt: '2026-03-29T12:00:00',
      days: { '2026-03-28': 3, '2026-03-29': 12 },
      hours: { '01:00': 4, '03:00': 8 },
    },
    {
      name: 'the 25-hour day in New York, read after the change',
      timeZone: 'America/New_York',
      requests: [
        { start: '2026-10-31T23:30:00', end: '2026-10-31T23:30:01', credits: 2 },
        { start: '2026-11-01T00:30:00', end: '2026-11-01T00:30:01', credits: 4 },
        { start: '2026-11-01T23:30:00', end: '2026-11-01T23:30:01', credits: 8 },
      ],
      readAt: '2026-11-01T23:50:00',
      days: { '2026-10-31': 2, '2026-11-01': 12 },
      hours: { '00:00': 4, '23:00': 8 },
    },
    {
      name: "Lord Howe Island's half-hour change",
      timeZone: 'Australia/Lord_Howe',
      requests: [
        { start: '2026-04-04T00:10:00', end: '2026-04-04T00:10:01', credits: 2 },
        { start: '2026-04-05T00:10:00', end: '2026-04-05T00:10:01', credits: 4 },
        { start: '2026-04-05T03:10:00', end: '2026-04-05T03:10:01', credits: 8 },
      ],
      readAt: '2026-04-05T12:00:00',
      days: { '2026-04-04': 2, '2026-04-05': 12 },
      hours: { '00:00': 4, '03:00': 8 },
    },
  ])('$name', async ({ timeZone, requests, readAt, days, hours }) => {
    const week = await readings(timeZone, { requests, readAt, range: '7d' });
    expect(week.chartDays).toEqual(days);
    expect(week.live).toEqual(week.rebuilt);
    const today = await readings(timeZone, { requests, readAt, range: 'today' });
    expect(today.chartHours).toEqual(hours);
  });
});
