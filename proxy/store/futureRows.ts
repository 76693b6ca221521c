import type { DatabaseSync } from 'node:sqlite';

/** What the start did with rows dated after it. */
export interface FutureRows {
  /** Dated at this start: they were written while the clock ran ahead. */
  redated: number;
  /** Left at their dates: the gateway's clock agreed with them, so this start's clock is behind. */
  leftBehindClock: number;
}

/**
 * A row is taken as written with a right clock when the gateway's answer (its Date header, one
 * second's resolution, sent after the request started) is no more than this before the row's date.
 */
const WRITTEN_CLOCK_TOLERANCE_MS = 5 * 60_000;
/** The newest answers looked at for the gateway's clock: a few tell the case, the rest cost reads. */
const WITNESSES = 20;

/**
 * Rows dated after the log opens were written while the clock ran ahead (and it was set right
 * since), or came from a machine whose clock did. Their money was spent, so caps must count it,
 * but left at their date they counted toward every day until then (the ledger seeds "since the
 * start of today" at each start) and the Spend screen, which reads up to now, showed none of it.
 * Each is dated at this start instead, once: it counts toward today and this month like a
 * request made now, and its note keeps the date it was written with.
 *
 * The same rows are found when this start's clock is behind (a login before the network set it;
 * an RTC a second OS keeps in local time, read as UTC west of Greenwich; a dead RTC battery). Dated
 * at this wrong now they would be moved into the past for good, out of today's cap once the clock
 * is set right, and a clock years behind would move the whole log. The gateway's Date header,
 * kept with the answer's headers, tells the two apart: an origin server with a clock sends it
 * (RFC 9110 section 6.6.1). Where the gateway agreed with a row's date, this clock is behind and
 * no row is moved; they still count toward today's caps, which seed from the log with no end.
 */
export function redateFutureRows(db: DatabaseSync, nowMs: number): FutureRows {
  if (writtenWithRightClock(db, nowMs)) {
    const row = db.prepare('SELECT count(*) AS rows FROM requests WHERE started_at_ms > :nowMs').get({ nowMs }) as { rows: number };
    return { redated: 0, leftBehindClock: Number(row.rows) };
  }
  const redated = Number(
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
  return { redated, leftBehindClock: 0 };
}

/** Whether a row dated after now was written when the gateway's clock agreed with its date. */
function writtenWithRightClock(db: DatabaseSync, nowMs: number): boolean {
  const witnesses = db
    .prepare(
      `SELECT r.started_at_ms AS startedAtMs, json_extract(b.response_headers, '$.date') AS gatewayDate
         FROM requests r JOIN request_bodies b ON b.request_id = r.id
        WHERE r.started_at_ms > :nowMs AND json_valid(b.response_headers)
          AND json_type(b.response_headers, '$.date') = 'text'
        ORDER BY r.started_at_ms DESC LIMIT ${WITNESSES}`,
    )
    .all({ nowMs }) as { startedAtMs: number; gatewayDate: string }[];
  return witnesses.some(({ startedAtMs, gatewayDate }) => Date.parse(gatewayDate) >= startedAtMs - WRITTEN_CLOCK_TOLERANCE_MS);
}

/** What the start output says about rows dated after it; null when there were none. */
export function futureRowsNotice({ redated, leftBehindClock }: FutureRows, nowMs: number): string | null {
  const at = new Date(nowMs).toISOString();
  if (leftBehindClock > 0) {
    const rows = leftBehindClock === 1 ? '1 request is' : `${leftBehindClock} requests are`;
    return `${rows} dated after now (${at}) and the gateway's clock agreed with their dates when they were made: the clock seems behind, so they keep their dates, counted toward today's caps until it is set right.`;
  }
  if (redated === 0) return null;
  const [rows, counts] = redated === 1 ? ['1 request was', 'it now counts'] : [`${redated} requests were`, 'they now count'];
  return `${rows} dated after now (the clock was ahead when written): ${counts} as of ${at}, toward today's and this month's spend and caps.`;
}
