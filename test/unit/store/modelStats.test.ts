import { describe, expect, it } from 'vitest';
import { nearestRankPercentile, summarizeModelStats, type ModelSample } from '../../../proxy/store/read/modelStats.ts';

describe('nearestRankPercentile', () => {
  const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  it.each([
    [[], 0.5, null],
    [[42], 0.5, 42],
    [[42], 0.95, 42],
    [oneToTen, 0.5, 5],
    [oneToTen, 0.95, 10],
    [oneToTen, 0.9, 9],
    [oneToTen, 0, 1],
    [oneToTen, 1, 10],
    [[10, 20, 30], 0.5, 20],
    [[10, 20, 30, 40], 0.5, 20],
  ])('%j at %s -> %s', (values, fraction, expected) => {
    expect(nearestRankPercentile(values, fraction)).toBe(expected);
  });
});

describe('summarizeModelStats', () => {
  it('groups by model, ignores missing timings and orders by request count', () => {
    const samples: ModelSample[] = [
      { model: 'small', isError: false, durationMs: 300, ttfbMs: 30 },
      { model: 'big', isError: true, durationMs: null, ttfbMs: null },
      { model: 'small', isError: false, durationMs: 100, ttfbMs: 10 },
      { model: 'small', isError: true, durationMs: 200, ttfbMs: null },
    ];
    expect(summarizeModelStats(samples)).toEqual([
      { model: 'small', requests: 3, errors: 1, errorRate: 1 / 3, p50DurationMs: 200, p95DurationMs: 300, p50TtfbMs: 10, p95TtfbMs: 30 },
      { model: 'big', requests: 1, errors: 1, errorRate: 1, p50DurationMs: null, p95DurationMs: null, p50TtfbMs: null, p95TtfbMs: null },
    ]);
  });

  it('is empty without samples', () => {
    expect(summarizeModelStats([])).toEqual([]);
  });
});
