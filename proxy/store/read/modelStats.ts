import type { ModelStats } from '../../contracts/log.ts';

/** One request as model statistics see it. */
export interface ModelSample {
  model: string;
  isError: boolean;
  durationMs: number | null;
  ttfbMs: number | null;
}

/** Percentile by nearest rank over an ascending list; null for an empty list. */
export function nearestRankPercentile(sortedAscending: readonly number[], fraction: number): number | null {
  if (sortedAscending.length === 0) return null;
  const rank = Math.min(sortedAscending.length, Math.max(1, Math.ceil(fraction * sortedAscending.length)));
  return sortedAscending[rank - 1] ?? null;
}

interface Accumulator {
  requests: number;
  errors: number;
  durationsMs: number[];
  ttfbsMs: number[];
}

const ascending = (a: number, b: number): number => a - b;

/** Per model: counts, error rate, p50/p95 of duration and time to first byte; busiest model first. */
export function summarizeModelStats(samples: Iterable<ModelSample>): ModelStats[] {
  const byModel = new Map<string, Accumulator>();
  for (const sample of samples) {
    let accumulator = byModel.get(sample.model);
    if (accumulator === undefined) {
      accumulator = { requests: 0, errors: 0, durationsMs: [], ttfbsMs: [] };
      byModel.set(sample.model, accumulator);
    }
    accumulator.requests += 1;
    if (sample.isError) accumulator.errors += 1;
    if (sample.durationMs !== null) accumulator.durationsMs.push(sample.durationMs);
    if (sample.ttfbMs !== null) accumulator.ttfbsMs.push(sample.ttfbMs);
  }
  const stats = [...byModel].map(([model, { requests, errors, durationsMs, ttfbsMs }]): ModelStats => {
    durationsMs.sort(ascending);
    ttfbsMs.sort(ascending);
    return {
      model,
      requests,
      errors,
      errorRate: requests === 0 ? 0 : errors / requests,
      p50DurationMs: nearestRankPercentile(durationsMs, 0.5),
      p95DurationMs: nearestRankPercentile(durationsMs, 0.95),
      p50TtfbMs: nearestRankPercentile(ttfbsMs, 0.5),
      p95TtfbMs: nearestRankPercentile(ttfbsMs, 0.95),
    };
  });
  return stats.sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
}
