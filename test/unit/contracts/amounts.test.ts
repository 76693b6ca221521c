import { describe, expect, it } from 'vitest';
import { formatCredits, formatMoney, typedNumber } from '../../../proxy/contracts/amounts.ts';

describe('formatCredits', () => {
  it.each([
    { credits: null, text: 'unpriced' },
    { credits: 0, text: '0' },
    { credits: 0.0000004, text: '0.0000004' },
    { credits: 0.000042, text: '0.000042' },
    { credits: 0.0000123456, text: '0.000012' },
    { credits: 0.00009999, text: '0.0001' },
    { credits: 0.0001, text: '0.0001' },
    { credits: 0.01234, text: '0.0123' },
    { credits: 0.3 + 0.1 + 0.2 - 0.3, text: '0.3' },
    { credits: 1, text: '1' },
    { credits: 20.134, text: '20.13' },
    { credits: 12345.6, text: '12,345.6' },
  ])('$credits -> $text', ({ credits, text }) => {
    expect(formatCredits(credits)).toBe(text);
  });
});

describe('formatMoney', () => {
  it.each([
    { amount: 0, currency: 'CNY', text: '¥0.00' },
    { amount: 0.0000315, currency: 'CNY', text: '<¥0.01' },
    { amount: 0.009, currency: 'USD', text: '<$0.01' },
    { amount: 0.01, currency: 'CNY', text: '¥0.01' },
    { amount: 9.375, currency: 'CNY', text: '¥9.38' },
    { amount: 1234.5, currency: 'USD', text: '$1,234.50' },
  ] as const)('$amount $currency -> $text', ({ amount, currency, text }) => {
    expect(formatMoney(amount, currency)).toBe(text);
  });
});

describe('typedNumber', () => {
  it.each([
    ['', undefined],
    ['  ', undefined],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['1e3', 1000],
    ['1e308', 1e308],
  ])('%j reads as %s', (text, value) => {
    expect(typedNumber(text)).toBe(value);
  });

  // Infinity: sent as JSON it became null, refused without naming the text or the cause.
  it.each(['1e400', '-1e400', '9'.repeat(400)])('refuses a number past the largest double, naming it (%#)', (text) => {
    expect(typedNumber(text)).toEqual({
      problem: `'${text}' is too large to store: past about 1.8e308 a number reads as infinite; write the number meant`,
    });
  });
});
