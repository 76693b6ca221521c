import type { DatabaseSync } from 'node:sqlite';

/**
 * Rows dated after the log opens were written while the clock ran ahead (and it was set right
 * since), or came from a machine whose clock did. Their money was spent, so caps must count it,
 * but left at their date they counted toward every day until then (the ledger seeds "since the
 * start of today" at each start) and the Spend screen, which reads up to now, showed none of it.
 * Each is dated at this start instead, once: it counts toward today and this month like a
 * request made now, and its note keeps the date it was written with.
 */
export function redateFutureRows(db: DatabaseSync, nowMs: number): number {
  return Number(
    db
      .prepare(
        `UPDATE requests SET started_at_ms = :nowMs,
           notes = json_insert(CASE WHEN json_valid(notes) THEN notes ELSE '[]' END, '$[#]',
             'dated ' || strftime('%Y-%m-%d %H:%M:%S UTC', started_at_ms / 1000.0, 'unixepoch')
             || ' when written, after the clock at a later start: counted from then')
         WHERE started_at_ms > :nowMs`,
      )
      .run({ nowMs }).changes,
  );
}

/** What the start output says about rows it dated at now; null when there were none. */
export function futureRowsNotice(count: number, nowMs: number): string | null {
  if (count === 0) return null;
  const [rows, counts] = count === 1 ? ['1 request was', 'it now counts'] : [`${count} requests were`, 'they now count'];
  return `${rows} dated after now (the clock was ahead when written): ${counts} as of ${new Date(nowMs).toISOString()}, toward today's and this month's spend and caps.`;
}
