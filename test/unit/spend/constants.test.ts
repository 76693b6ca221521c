import { describe, expect, it } from 'vitest';
import { toCny, toUsdApprox } from '../../../proxy/spend/constants.ts';

describe('conversions', () => {
  it.each([
    { credits: 1, cny: 0.75, usd: 0.11 },
    { credits: 20.13, cny: 15.0975, usd: 2.2143 },
    // Not rounded to the cent: the window shows "<¥0.01" for it rather than ¥0.00.
    { credits: 0.004, cny: 0.003, usd: 0.00044 },
  ])('$credits credits = $cny CNY, ~$usd USD', ({ credits, cny, usd }) => {
    expect(toCny(credits)).toBeCloseTo(cny, 12);
    expect(toUsdApprox(credits)).toBeCloseTo(usd, 12);
  });
});
