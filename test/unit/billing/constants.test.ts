import { describe, expect, it } from 'vitest';
import { formatCredits, roundCredits, toCny, toUsdApprox } from '../../../proxy/billing/constants.ts';

describe('conversions and formatting', () => {
  it.each([
    { credits: 1, cny: 0.75, usd: 0.11 },
    { credits: 20.13, cny: 15.1, usd: 2.21 },
    { credits: 0.004, cny: 0, usd: 0 },
  ])('$credits credits = $cny CNY, ~$usd USD', ({ credits, cny, usd }) => {
    expect(toCny(credits)).toBe(cny);
    expect(toUsdApprox(credits)).toBe(usd);
  });

  it.each([
    { credits: null, text: 'unpriced' },
    { credits: 0, text: '0' },
    { credits: 0.00001, text: '<0.0001' },
    { credits: 0.01234, text: '0.0123' },
    { credits: 20.134, text: '20.13' },
    { credits: 12345.6, text: '12345.6' },
  ])('formatCredits($credits) = $text', ({ credits, text }) => {
    expect(formatCredits(credits)).toBe(text);
  });

  it.each([
    { credits: 0.1 + 0.2, rounded: 0.3 },
    { credits: 1.0000004, rounded: 1 },
    { credits: 1.0000005, rounded: 1.000001 },
  ])('roundCredits($credits) = $rounded', ({ credits, rounded }) => {
    expect(roundCredits(credits)).toBe(rounded);
  });
});
