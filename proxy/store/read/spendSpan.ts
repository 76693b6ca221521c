import type { SpendByDayQuery } from '../../contracts/log.ts';
import { localBuckets, type LocalBucket } from '../../core/localPeriods.ts';

type SqlParam = string | number;

/** Where a spend query's rows come from and how they are bucketed: its day, its FROM, its WHERE, their parameters in order. */
export interface SpendSpan {
  day: string;
  from: string;
  where: string | null;
  params: SqlParam[];
}

/** `buckets`: the local days or hours to sum in, when cut elsewhere (LogReader: another thread's zone). */
export function spanOf(query: SpendByDayQuery, buckets?: readonly LocalBucket[]): SpendSpan {
  const bucket = query.bucket ?? 'day';
  if (query.utcOffsetMinutes === undefined) {
    // Each local day or hour by its own bounds: the zone's offset differs across a clock change. CROSS
    // JOIN keeps the buckets outside: one indexed range per bucket, not every bucket per row.
    return {
      day: 'b.value ->> 0',
      from: 'json_each(?) b CROSS JOIN requests ON started_at_ms >= b.value ->> 1 AND started_at_ms < b.value ->> 2',
      where: null,
      params: [bucketsJson(buckets ?? localBuckets(query.fromMs, query.toMs, bucket))],
    };
  }
  return {
    day:
      bucket === 'hour'
        ? "strftime('%Y-%m-%d %H', (started_at_ms + ?) / 1000, 'unixepoch')"
        : "date((started_at_ms + ?) / 1000, 'unixepoch')",
    from: 'requests',
    where: 'started_at_ms >= ? AND started_at_ms < ?',
    params: [query.utcOffsetMinutes * 60_000, query.fromMs, query.toMs],
  };
}

/** Buckets as a JSON array of [name, startMs, endMs], one statement whatever their number. */
function bucketsJson(buckets: readonly LocalBucket[]): string {
  return JSON.stringify(buckets.map((bucket) => [bucket.name, bucket.startMs, bucket.endMs]));
}
