import { describe, expect, it } from 'vitest';
import { cpuPerRequestUs, median, pairedRatios, percentile } from '../../bench/stats.ts';
import { pairedShare } from '../../bench/targets.ts';
import type { ThroughputResult } from '../../bench/scenarios.ts';

const run = (roundRequestsPerSecond: number[]): ThroughputResult => ({
  count: 0,
  p50Ms: 0,
  p99Ms: 0,
  meanMs: 0,
  failures: 0,
  requestsPerSecond: median(roundRequestsPerSecond),
  roundRequestsPerSecond,
  cpuUsPerRequest: null,
  roundCpuUsPerRequest: [],
  warmupRequests: 0,
});

describe('bench statistics', () => {
  it('charges CPU per request over all runs together, and has no figure without requests', () => {
    expect(cpuPerRequestUs([100, 300], [1000, 3000])).toBe(100);
    expect(cpuPerRequestUs([10, 0], [0, 0])).toBeNaN();
  });

  it.each([
    { values: [], expected: Number.NaN },
    { values: [5], expected: 5 },
    { values: [3, 1, 2], expected: 2 },
    { values: [4, 1, 3, 2], expected: 2 },
  ])('median of $values is $expected', ({ values, expected }) => {
    expect(median(values)).toBe(expected);
  });

  it.each([
    { samples: [], fraction: 0.5, expected: Number.NaN },
    { samples: [10, 30, 20], fraction: 0.5, expected: 20 },
    { samples: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], fraction: 0.99, expected: 10 },
  ])('percentile $fraction of $samples is $expected', ({ samples, fraction, expected }) => {
    expect(percentile(samples, fraction)).toBe(expected);
  });

  it('pairs rounds by position and ignores rounds only one side has', () => {
    expect(pairedRatios([2, 9, 3, 100], [4, 9, 1])).toEqual([0.5, 1, 3]);
  });

  it('judges a share by the median of paired rounds, which cancels load both runs of a round shared', () => {
    // The machine is slow in the first and fourth rounds and a stumbles in the last: the separate
    // medians (1500 and 2000) would make a 0.75x of b, though a kept 0.95x of b in most rounds.
    const a = run([1000, 1900, 2000, 950, 1500]);
    const b = run([1100, 2000, 2100, 1000, 2600]);
    const share = pairedShare(a, b);
    expect(share.share).toBeCloseTo(0.95, 5);
    expect(share.lowest).toBeCloseTo(1500 / 2600, 5);
    expect(share.highest).toBeCloseTo(2000 / 2100, 5);
    expect(share.rounds).toBe(5);
  });
});
