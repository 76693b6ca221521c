/** Budget periods run in local time: a day and a month start at local midnight. */
export function startOfLocalDayMs(atMs: number): number {
  const at = new Date(atMs);
  return new Date(at.getFullYear(), at.getMonth(), at.getDate()).getTime();
}

export function startOfLocalMonthMs(atMs: number): number {
  const at = new Date(atMs);
  return new Date(at.getFullYear(), at.getMonth(), 1).getTime();
}

/** A local day or hour of the Spend screen: its name and where it starts and ends (exclusive). */
export interface LocalBucket {
  /** `YYYY-MM-DD`, or `YYYY-MM-DD HH` for an hour. */
  name: string;
  startMs: number;
  endMs: number;
}

/**
 * The local days (or hours) that meet [fromMs, toMs), cut to it, each bounded by the zone's own rules on its
 * date: a day a clock change makes 23 or 25 hours long, an hour it skips (left out) or repeats (one
 * bucket of both), a half-hour change (Lord Howe Island). One UTC offset for a whole range filed
 * spend on the far side of a change under the neighbouring day or hour.
 */
export function localBuckets(fromMs: number, toMs: number, unit: 'day' | 'hour'): LocalBucket[] {
  const buckets: LocalBucket[] = [];
  for (let dayStartMs = startOfLocalDayMs(fromMs); dayStartMs < toMs; ) {
    const day = new Date(dayStartMs);
    const [year, month, date] = [day.getFullYear(), day.getMonth(), day.getDate()];
    const nextDayStartMs = new Date(year, month, date + 1).getTime();
    const dayName = `${year}-${twoDigits(month + 1)}-${twoDigits(date)}`;
    if (unit === 'day') buckets.push({ name: dayName, startMs: dayStartMs, endMs: nextDayStartMs });
    else {
      for (let hour = 0; hour < 24; hour += 1) {
        const startMs = hour === 0 ? dayStartMs : new Date(year, month, date, hour).getTime();
        const endMs = hour === 23 ? nextDayStartMs : new Date(year, month, date, hour + 1).getTime();
        if (endMs > startMs) buckets.push({ name: `${dayName} ${twoDigits(hour)}`, startMs, endMs });
      }
    }
    dayStartMs = nextDayStartMs;
  }
  return buckets
    .filter((bucket) => bucket.endMs > fromMs && bucket.startMs < toMs)
    .map((bucket) => ({ ...bucket, startMs: Math.max(bucket.startMs, fromMs), endMs: Math.min(bucket.endMs, toMs) }));
}

/** `YYYY-MM-DD` of the local day `atMs` falls on. */
export function localDayName(atMs: number): string {
  const at = new Date(atMs);
  return `${at.getFullYear()}-${twoDigits(at.getMonth() + 1)}-${twoDigits(at.getDate())}`;
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}
