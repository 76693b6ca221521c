import { describe, expect, it } from 'vitest';
import type { SpendByDayRow } from '../../../proxy/contracts/log.ts';
import { withLeftSpendMoved, type LeftSpendMove } from '../../../proxy/store/read/leftSpend.ts';

const row = (day: string, group: string, costCredits: number, requests = 1): SpendByDayRow => ({
  day,
  group,
  requests,
  costCredits,
  unpricedRequests: 0,
  inputTokens: 10,
  outputTokens: 10,
  gatewayCost: null,
  gatewayCostProfiles: [],
  unstatedRequests: 0,
});
const sums = (rows: readonly SpendByDayRow[]) => rows.map((r) => [r.day, r.group, r.requests, Number(r.costCredits.toFixed(9))]);

describe('withLeftSpendMoved', () => {
  it.each<{ name: string; rows: SpendByDayRow[]; moves: LeftSpendMove[]; expected: (string | number | null)[][] }>([
    { name: 'no moves: the rows as they are', rows: [row('2026-11-29', 'main', 2)], moves: [], expected: [['2026-11-29', 'main', 1, 2]] },
    {
      name: 'a run left on a profile with its own requests that day',
      rows: [row('2026-11-29', 'backup', 3), row('2026-11-29', 'main', 2)],
      moves: [{ day: '2026-11-29', answered: 'backup', left: 'main', credits: 1 }],
      expected: [
        ['2026-11-29', 'backup', 1, 2],
        ['2026-11-29', 'main', 1, 3],
      ],
    },
    {
      name: 'a run left on a profile with no request of its own: a group of no requests, in order',
      rows: [row('2026-11-28', 'zeta', 1), row('2026-11-29', 'backup', 3)],
      moves: [{ day: '2026-11-29', answered: 'backup', left: 'alpha', credits: 1.5 }],
      expected: [
        ['2026-11-28', 'zeta', 1, 1],
        ['2026-11-29', 'alpha', 0, 1.5],
        ['2026-11-29', 'backup', 1, 1.5],
      ],
    },
  ])('$name', ({ rows, moves, expected }) => {
    expect(sums(withLeftSpendMoved(rows, moves))).toEqual(expected);
    // The day's total is unchanged: spend moves between profiles, none is made or lost.
    const total = (list: readonly SpendByDayRow[]) => list.reduce((sum, r) => sum + r.costCredits, 0);
    expect(total(withLeftSpendMoved(rows, moves))).toBeCloseTo(total(rows), 12);
  });
});
