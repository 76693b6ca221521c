import { describe, expect, it } from 'vitest';
import { parseMoment } from '../../../../proxy/app/export/since.ts';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);

describe('parseMoment', () => {
  it.each([
    ['30m', NOW - 30 * 60_000],
    ['24h', NOW - 24 * 3_600_000],
    ['7d', NOW - 7 * 86_400_000],
    ['2W', NOW - 14 * 86_400_000],
    ['2026-11-01', new Date(2026, 10, 1).getTime()],
    ['2026-11-01T09:00:00Z', Date.UTC(2026, 10, 1, 9)],
    ['2026-11-01T09:00', new Date(2026, 10, 1, 9).getTime()],
  ])('%s', (text, expected) => {
    expect(parseMoment(text, NOW, '--since')).toBe(expected);
  });

  it.each(['yesterday', '7', '7y', '2026-13-45', ''])('refuses %j and says what is accepted', (text) => {
    expect(() => parseMoment(text, NOW, '--since')).toThrow(/--since .*duration back from now \(30m, 24h, 7d, 2w\) or a date/);
  });
});
