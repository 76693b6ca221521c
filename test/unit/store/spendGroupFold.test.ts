import { describe, expect, it } from 'vitest';
import { emptySpendGroup, type SpendByDayRow } from '../../../proxy/contracts/log.ts';
import { foldSmallGroups } from '../../../proxy/store/read/spendGroupFold.ts';

function row(day: string, group: string | null, costCredits: number, extra: Partial<SpendByDayRow> = {}): SpendByDayRow {
  return { ...emptySpendGroup(day, group), requests: 1, costCredits, inputTokens: 10, outputTokens: 2, unstatedRequests: 1, ...extra };
}

const summary = (rows: SpendByDayRow[]) => rows.map((entry) => [entry.day, entry.group, entry.requests, entry.costCredits]);

describe('foldSmallGroups', () => {
  it.each([
    ['fewer groups than the limit', 3],
    ['exactly the limit', 2],
  ])('keeps every row with %s', (_name, maxGroups) => {
    const rows = [row('2026-11-28', 'a', 1), row('2026-11-29', 'b', 2)];
    expect(foldSmallGroups(rows, 'session', maxGroups)).toEqual(rows);
  });

  it('keeps the groups that cost most over the whole span and sums the rest per day under one named group', () => {
    const rows = [
      row('2026-11-28', 'big', 5),
      row('2026-11-28', 'small-1', 1),
      row('2026-11-28', 'small-2', 2, { unpricedRequests: 1, gatewayCost: 0.5, gatewayCostProfiles: ['work'] }),
      row('2026-11-29', 'big', 1),
      row('2026-11-29', 'mid', 4),
      row('2026-11-29', 'small-1', 1, { requests: 2 }),
    ];
    const folded = foldSmallGroups(rows, 'session', 2);
    expect(summary(folded)).toEqual([
      ['2026-11-28', 'big', 1, 5],
      ['2026-11-28', '(2 other sessions)', 2, 3],
      ['2026-11-29', 'big', 1, 1],
      ['2026-11-29', 'mid', 1, 4],
      ['2026-11-29', '(2 other sessions)', 2, 1],
    ]);
    expect(folded[1]).toMatchObject({
      unpricedRequests: 1,
      gatewayCost: 0.5,
      gatewayCostProfiles: ['work'],
      inputTokens: 20,
      unstatedRequests: 2,
    });
    // Nothing is lost: the sums over every row are the same.
    const total = (list: SpendByDayRow[]) => list.reduce((sum, entry) => sum + entry.costCredits, 0);
    expect(total(folded)).toBe(total(rows));
  });

  it('breaks a tie in cost by requests, then by name, and keeps the ungrouped row whatever its size', () => {
    const rows = [
      row('2026-11-29', null, 0.1),
      row('2026-11-29', 'b', 1, { requests: 3 }),
      row('2026-11-29', 'a', 1, { requests: 3 }),
      row('2026-11-29', 'c', 1),
    ];
    expect(summary(foldSmallGroups(rows, 'client', 1))).toEqual([
      ['2026-11-29', null, 1, 0.1],
      ['2026-11-29', '(2 other clients)', 4, 2],
      ['2026-11-29', 'a', 3, 1],
    ]);
  });
});
