import { describe, expect, it } from 'vitest';
import {
  comparePairedRuns,
  cpuVerdict,
  formatVerdict,
  overallVerdict,
  ratioSpread,
  roundOrder,
  roundRatios,
  type RoundRun,
} from '../../bench/pairedRounds.ts';

const run = (cpuMs: number, requests: number, requestsPerSecond = requests, failures = 0): RoundRun => ({
  cpuMs,
  requests,
  requestsPerSecond,
  failures,
});

describe('baseline comparison, paired rounds', () => {
  it('alternates which side goes first, A B B A A B', () => {
    expect([0, 1, 2, 3].flatMap((round) => roundOrder(round))).toEqual([
      'baseline',
      'head',
      'head',
      'baseline',
      'baseline',
      'head',
      'head',
      'baseline',
    ]);
  });

  it('divides HEAD by the baseline round by round, over the rounds both ran, leaving out rounds without a figure', () => {
    expect(roundRatios([2, 3, 4], [1, 2])).toEqual([2, 1.5]);
    expect(roundRatios([2, Number.NaN, 4], [1, 2, 0])).toEqual([2]);
  });

  it('spreads ratios as median, nearest-rank quartiles and range', () => {
    expect(ratioSpread([1.05, 0.95, 1.0, 1.2, 0.9, 1.1, 1.02, 0.98, 1.01, 0.99])).toEqual({
      median: 1.0,
      lowerQuartile: 0.98,
      upperQuartile: 1.05,
      min: 0.9,
      max: 1.2,
    });
    expect(ratioSpread([]).median).toBeNaN();
  });

  it.each([
    { name: 'seven of ten rounds costlier is noise', ratios: [1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 0.99, 0.98, 0.97], kind: 'no slowdown' },
    { name: 'HEAD cheaper in every round', ratios: Array(10).fill(0.9), kind: 'no slowdown' },
    { name: 'eight of ten rounds costlier is slower', ratios: [1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 0.99, 0.98], kind: 'slower' },
  ])('$name', ({ ratios, kind }) => {
    expect(cpuVerdict(ratioSpread(ratios), 0).kind).toBe(kind);
  });

  it('says how much slower by the median ratio, and gives no verdict when requests failed', () => {
    const slower = cpuVerdict(ratioSpread([1.2, 1.25, 1.3, 1.2, 1.25]), 0);
    expect(formatVerdict(slower)).toBe('slower by 25.0%');
    expect(formatVerdict(cpuVerdict(ratioSpread([0.5]), 3))).toBe('no verdict: 3 requests failed');
  });

  it('charges each side all its CPU over all its requests, and pairs each round', () => {
    const comparison = comparePairedRuns(50, 3000, {
      baseline: [run(100, 1000, 500), run(300, 1000, 400), run(200, 1000, 600)],
      head: [run(110, 1000, 450), run(330, 1000, 400), run(220, 1000, 660)],
    });
    expect(comparison.baseline.cpuUsPerRequest).toBe(200);
    expect(comparison.head.cpuUsPerRequest).toBeCloseTo(220);
    expect(comparison.baseline.requestsPerSecond).toBe(500);
    expect(comparison.cpuRatio.median).toBeCloseTo(1.1);
    expect(comparison.throughputRatio.min).toBeCloseTo(0.9);
    expect(comparison.rounds).toBe(3);
    expect(formatVerdict(comparison.verdict)).toBe('slower by 10.0%');
  });

  it('counts failures on either side against the verdict', () => {
    const comparison = comparePairedRuns(1, 3000, { baseline: [run(100, 990, 990, 10)], head: [run(100, 1000)] });
    expect(comparison.verdict).toEqual({ kind: 'failed', failures: 10 });
  });

  it('says "no slowdown" overall only when every concurrency has none', () => {
    const even = comparePairedRuns(1, 3000, { baseline: [run(100, 1000), run(100, 1000)], head: [run(100, 1000), run(90, 1000)] });
    const slower = comparePairedRuns(50, 3000, { baseline: [run(100, 1000), run(100, 1000)], head: [run(150, 1000), run(150, 1000)] });
    expect(overallVerdict([even])).toBe("no slowdown (HEAD/baseline CPU per request 0.900x at c=1, within the rounds' noise or better)");
    expect(overallVerdict([even, slower])).toBe('slower by 50.0% at c=50');
  });
});
