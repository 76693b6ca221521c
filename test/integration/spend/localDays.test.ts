import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInTimeZone } from '../../support/timeZoneChild.ts';
import type { SpendRange } from '../../../proxy/contracts/spend.ts';
import type { SpendReadings, TimedSpend, ZoneChangeResult } from './fixtures/localTimeSpend.ts';

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

/**
 * A laptop carried across zones: the OS switches its zone, and the day cap, the month and the
 * Spend screen follow the local day the OS shows from then on, without a restart. The running
 * ledger must agree with one rebuilt from the log in the new zone (a restart there), and the zone
 * is looked at no more than once a minute (the request path never reads it).
 */
describe('a change of the OS time zone while Airlock runs', () => {
  it.each([
    {
      name: 'Paris to Tokyo in the evening: a new local day has begun',
      timeZone: 'Europe/Paris',
      osZone: 'Asia/Tokyo',
      // Paris 09:00 and 21:00 on Mar 10; in Tokyo the second is 05:00 on Mar 11.
      requests: [
        { start: '2026-03-10T08:00:00Z', end: '2026-03-10T08:00:05Z', credits: 3 },
        { start: '2026-03-10T20:00:00Z', end: '2026-03-10T20:00:05Z', credits: 5 },
      ],
      changedAt: '2026-03-10T20:30:00Z',
      readAt: '2026-03-10T21:05:00Z',
      today: '2026-03-11',
      totals: { dayCredits: 5, monthCredits: 8 },
    },
    {
      name: 'Paris to Tokyo in the morning: the same date, begun 8 hours earlier',
      timeZone: 'Europe/Paris',
      osZone: 'Asia/Tokyo',
      // Paris 17:00 on Mar 9 is Tokyo 01:00 on Mar 10; Paris 10:00 on Mar 10 is Tokyo 18:00.
      requests: [
        { start: '2026-03-09T16:00:00Z', end: '2026-03-09T16:00:05Z', credits: 4 },
        { start: '2026-03-10T09:00:00Z', end: '2026-03-10T09:00:05Z', credits: 3 },
      ],
      changedAt: '2026-03-10T09:30:00Z',
      readAt: '2026-03-10T10:05:00Z',
      today: '2026-03-10',
      totals: { dayCredits: 7, monthCredits: 7 },
    },
    {
      name: 'New York to Los Angeles over a month end: March is back to February',
      timeZone: 'America/New_York',
      osZone: 'America/Los_Angeles',
      // New York 23:30 on Feb 28 and 01:30 on Mar 1 (Los Angeles 20:30 and 22:30 on Feb 28).
      requests: [
        { start: '2026-03-01T04:30:00Z', end: '2026-03-01T04:30:05Z', credits: 2 },
        { start: '2026-03-01T06:30:00Z', end: '2026-03-01T06:30:05Z', credits: 6 },
      ],
      changedAt: '2026-03-01T07:00:00Z',
      readAt: '2026-03-01T07:35:00Z',
      today: '2026-02-28',
      totals: { dayCredits: 8, monthCredits: 8 },
    },
  ])('$name', async ({ timeZone, osZone, requests, changedAt, readAt, today, totals }) => {
    const at = Date.parse(changedAt);
    // The first look is 30 s before the change; the next may come only a minute after it.
    const checksAt = [at - 30_000, at, at + 29_999, at + 30_000].map((ms) => new Date(ms).toISOString());
    const result = await runInTimeZone<ZoneChangeResult>(SCENARIOS, timeZone, 'zoneChange', {
      requests,
      osZone,
      changedAt,
      checksAt,
      readAt,
    });
    // Looked at on the first check and a minute later only: the change is seen at that look.
    expect(result.osZoneReads).toEqual([1, 1, 1, 2]);
    expect(result.zoneChanges).toEqual([osZone]);
    expect(result.today).toBe(today);
    expect(result.readings.live).toEqual(totals);
    expect(result.readings.rebuilt).toEqual(totals);
    expect(result.readings.screenToday).toBe(totals.dayCredits);
    expect(result.readings.budgetSpent).toEqual({ daily: totals.dayCredits, monthly: totals.monthCredits });
  });
});
