/**
 * Pure figures for the baseline comparison (baseline.ts): which side runs first in a round, the
 * round-by-round ratios of HEAD to the baseline, their spread, and the verdict.
 */
import { cpuPerRequestUs, median, percentile } from './stats.ts';

export type Side = 'baseline' | 'head';

/**
 * The sides in round `round` (from 0): baseline first in even rounds, HEAD first in odd ones, so
 * the runs go A B B A A B ...: neither side always follows the other's work or meets the machine
 * in the same state, and each round's two runs sit side by side in time.
 */
export function roundOrder(round: number): readonly [Side, Side] {
  return round % 2 === 0 ? ['baseline', 'head'] : ['head', 'baseline'];
}

/** One side's run in one round. */
export interface RoundRun {
  /** The proxy process's CPU charged to this run (all its threads). */
  cpuMs: number;
  /** Requests answered 200. */
  requests: number;
  requestsPerSecond: number;
  /** Non-2xx answers and transport errors. */
  failures: number;
}

/** How round-by-round ratios spread: the median, the middle half (nearest-rank quartiles) and all of them. */
export interface RatioSpread {
  median: number;
  lowerQuartile: number;
  upperQuartile: number;
  min: number;
  max: number;
}

/** HEAD's figure over the baseline's, round by round; a round without a figure on either side has none. */
export function roundRatios(head: readonly number[], baseline: readonly number[]): number[] {
  const length = Math.min(head.length, baseline.length);
  return Array.from({ length }, (_, index) => (head[index] as number) / (baseline[index] as number)).filter(Number.isFinite);
}

/** NaN throughout for no ratios. */
export function ratioSpread(ratios: readonly number[]): RatioSpread {
  return {
    median: median(ratios),
    lowerQuartile: percentile(ratios, 0.25),
    upperQuartile: percentile(ratios, 0.75),
    min: ratios.length === 0 ? Number.NaN : Math.min(...ratios),
    max: ratios.length === 0 ? Number.NaN : Math.max(...ratios),
  };
}

export type Verdict = { kind: 'no slowdown' } | { kind: 'slower'; percent: number } | { kind: 'failed'; failures: number };

/**
 * HEAD is slower only when its CPU per request was higher in more than three rounds of four (the
 * lower quartile of the ratios above 1): with 10 rounds that is 8 or more, which an equal pair
 * does by chance 5.5% of the time (a sign test). Otherwise the difference is within the rounds'
 * noise, or HEAD is cheaper. How much slower is the median ratio. Failed requests make the
 * figures meaningless (a quick error answer is cheap).
 */
export function cpuVerdict(cpuRatio: RatioSpread, failures: number): Verdict {
  if (failures > 0) return { kind: 'failed', failures };
  if (!(cpuRatio.lowerQuartile > 1)) return { kind: 'no slowdown' };
  return { kind: 'slower', percent: (cpuRatio.median - 1) * 100 };
}

export interface SideFigures {
  /** All of the side's CPU over all of its requests. */
  cpuUsPerRequest: number;
  /** The median round's throughput. */
  requestsPerSecond: number;
  failures: number;
}

export interface PairedComparison {
  concurrency: number;
  runMs: number;
  rounds: number;
  baseline: SideFigures;
  head: SideFigures;
  cpuRatio: RatioSpread;
  throughputRatio: RatioSpread;
  verdict: Verdict;
}

const cpuUsPerRequestOf = (run: RoundRun): number => cpuPerRequestUs([run.cpuMs], [run.requests]);

function sideFigures(runs: readonly RoundRun[]): SideFigures {
  return {
    cpuUsPerRequest: cpuPerRequestUs(
      runs.map((run) => run.cpuMs),
      runs.map((run) => run.requests),
    ),
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  };
}

/** Both sides' figures and the paired ratios, from each side's runs in round order. */
export function comparePairedRuns(concurrency: number, runMs: number, runs: Record<Side, readonly RoundRun[]>): PairedComparison {
  const baseline = sideFigures(runs.baseline);
  const head = sideFigures(runs.head);
  const cpuRatio = ratioSpread(roundRatios(runs.head.map(cpuUsPerRequestOf), runs.baseline.map(cpuUsPerRequestOf)));
  const throughputRatio = ratioSpread(
    roundRatios(
      runs.head.map((run) => run.requestsPerSecond),
      runs.baseline.map((run) => run.requestsPerSecond),
    ),
  );
  return {
    concurrency,
    runMs,
    rounds: Math.min(runs.baseline.length, runs.head.length),
    baseline,
    head,
    cpuRatio,
    throughputRatio,
    verdict: cpuVerdict(cpuRatio, baseline.failures + head.failures),
  };
}

export function formatVerdict(verdict: Verdict): string {
  if (verdict.kind === 'no slowdown') return 'no slowdown';
  if (verdict.kind === 'failed') return `no verdict: ${verdict.failures} requests failed`;
  return `slower by ${verdict.percent.toFixed(1)}%`;
}

/** One line for all concurrencies: "no slowdown" only if every one has none, else what went wrong where. */
export function overallVerdict(comparisons: readonly PairedComparison[]): string {
  const ratios = comparisons.map((comparison) => `${comparison.cpuRatio.median.toFixed(3)}x at c=${comparison.concurrency}`).join(', ');
  const bad = comparisons.filter((comparison) => comparison.verdict.kind !== 'no slowdown');
  if (bad.length === 0) return `no slowdown (HEAD/baseline CPU per request ${ratios}, within the rounds' noise or better)`;
  return bad.map((comparison) => `${formatVerdict(comparison.verdict)} at c=${comparison.concurrency}`).join('; ');
}
