import { describe, expect, it } from 'vitest';
import { CreditSum } from '../../../proxy/spend/creditSum.ts';

function sumOf(start: number, costs: readonly number[]): number {
  const sum = new CreditSum(start);
  for (const cost of costs) sum.add(cost);
  return sum.credits;
}

describe('CreditSum', () => {
  it.each([
    { name: 'nothing added', start: 0, costs: [], credits: 0 },
    { name: 'the start alone', start: 2.5, costs: [], credits: 2.5 },
    {
      name: 'costs each too small to change the total alone',
      start: 1,
      costs: Array.from({ length: 100 }, () => 1e-16),
      credits: 1 + 1e-14,
    },
    { name: 'a tiny cost on a large total', start: 1e6, costs: [1e-10, 1e-10, 1e-10], credits: 1e6 + 3e-10 },
    { name: 'a large cost after tiny ones', start: 0, costs: [1e-9, 1e9, -1e9], credits: 1e-9 },
  ])('$name', ({ start, costs, credits }) => {
    expect(sumOf(start, costs)).toBe(credits);
  });

  it('a million tenths are a hundred thousand exactly, as SQLite TOTAL() says', () => {
    expect(
      sumOf(
        0,
        Array.from({ length: 1_000_000 }, () => 0.1),
      ),
    ).toBe(100_000);
  });
});
