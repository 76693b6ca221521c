import { describe, expect, it } from 'vitest';
import { toCny, topUpEstimate, toUsdApprox } from '../../../proxy/billing/constants.ts';

describe('topUpEstimate', () => {
  it.each([
    { credits: 0, discountPercent: 0, payCny: 0, payUsdApprox: 0 },
    { credits: 99, discountPercent: 0, payCny: 74.25, payUsdApprox: 10.89 },
    { credits: 100, discountPercent: 1, payCny: 74.25, payUsdApprox: 10.89 },
    { credits: 499, discountPercent: 1, payCny: 370.51, payUsdApprox: 54.34 },
    { credits: 500, discountPercent: 1.5, payCny: 369.38, payUsdApprox: 54.18 },
    { credits: 999, discountPercent: 1.5, payCny: 738.01, payUsdApprox: 108.24 },
    { credits: 1000, discountPercent: 2, payCny: 735, payUsdApprox: 107.8 },
    { credits: 5000, discountPercent: 2, payCny: 3675, payUsdApprox: 539 },
  ])('$credits credits -> $discountPercent% off, $payCny CNY', ({ credits, discountPercent, payCny, payUsdApprox }) => {
    expect(topUpEstimate(credits)).toEqual({ credits, discountPercent, payCny, payUsdApprox });
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('rejects %s', (credits) => {
    expect(() => topUpEstimate(credits)).toThrow(RangeError);
  });
});

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
