/** Summary statistics for the benchmark: pure functions over samples in milliseconds. */

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

/** Nearest-rank percentile of unsorted samples; NaN for no samples. */
export function percentile(samples: readonly number[], fraction: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] as number;
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  return samples.reduce((sum, value) => sum + value, 0) / samples.length;
}

export function summarizeLatencies(samplesMs: readonly number[]): LatencySummary {
  return { count: samplesMs.length, p50Ms: percentile(samplesMs, 0.5), p99Ms: percentile(samplesMs, 0.99), meanMs: mean(samplesMs) };
}

/** Gaps between consecutive times. */
export function gaps(timesMs: readonly number[]): number[] {
  return timesMs.slice(1).map((time, index) => time - (timesMs[index] as number));
}

/** Position-wise mean of several series, over the positions every series has. */
export function meanSeries(series: readonly (readonly number[])[]): number[] {
  if (series.length === 0) return [];
  const length = Math.min(...series.map((values) => values.length));
  return Array.from({ length }, (_, index) => mean(series.map((values) => values[index] as number)));
}

/** Mean absolute difference between two series over their common positions. */
export function meanAbsoluteDifference(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  if (length === 0) return Number.NaN;
  let total = 0;
  for (let index = 0; index < length; index += 1) total += Math.abs((a[index] as number) - (b[index] as number));
  return total / length;
}

/** Index of the median in a sorted array: the lower middle one for an even length. */
export function lowerMiddleIndex(length: number): number {
  return Math.floor((length - 1) / 2);
}

/**
 * Round-by-round ratios `a[i] / b[i]` over the rounds both have. Rounds of the two series ran at
 * about the same time, so each ratio cancels the machine's load at that moment.
 */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  const length = Math.min(a.length, b.length);
  return Array.from({ length }, (_, index) => (a[index] as number) / (b[index] as number));
}

/** The median of unsorted values (the lower middle one for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return [...values].sort((x, y) => x - y)[lowerMiddleIndex(values.length)] as number;
}

/** CPU per request in microseconds over several runs: their total CPU over their total requests. */
export function cpuPerRequestUs(cpuMs: readonly number[], requests: readonly number[]): number {
  const totalRequests = requests.reduce((sum, count) => sum + count, 0);
  if (totalRequests === 0) return Number.NaN;
  return (cpuMs.reduce((sum, ms) => sum + ms, 0) * 1000) / totalRequests;
}
