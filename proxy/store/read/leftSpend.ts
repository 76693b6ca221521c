import { emptySpendGroup, type SpendByDayRow } from '../../contracts/log.ts';
import type { StatementCache } from './statementCache.ts';

/**
 * A fallback's runs on a profile it left are that profile's spend (FallbackHop.costCredits), while
 * the row, and its `cost_credits`, name the profile that answered. The log's per-profile sums move
 * them back: `spendSince` (what the caps are seeded from) and the Spend screen's and the spend
 * CSV's per-profile groups. Only rows with a chain are read, through `json_each` of the chain.
 */

/** Hop costs in the rows of a span, by day, the profile that answered and the profile each was left on. */
export interface LeftSpendMove {
  day: string;
  answered: string;
  left: string;
  credits: number;
}

/** What fallback chains since `sinceMs` move to `profileId` (runs left on it) less what they move off it (runs it left). */
export function leftSpendBalance(statements: StatementCache, profileId: string, sinceMs: number): number {
  const record = statements
    .get(
      `SELECT TOTAL(CASE WHEN hop.value ->> 'profileId' = ? THEN hop.value ->> 'costCredits' ELSE 0 END)
            - TOTAL(CASE WHEN r.profile_id = ? THEN hop.value ->> 'costCredits' ELSE 0 END) AS balance
       FROM requests r, json_each(r.fallback_chain) hop
       WHERE r.started_at_ms >= ? AND r.fallback_chain IS NOT NULL AND hop.value ->> 'costCredits' IS NOT NULL`,
    )
    .get(profileId, profileId, sinceMs);
  return Number(record?.balance ?? 0);
}

/**
 * Per-profile spend rows with each hop cost moved from the answering profile's group to the left
 * one's (a group made for it, with no requests of its own, where the day had none), in day and group order.
 */
export function withLeftSpendMoved(rows: readonly SpendByDayRow[], moves: readonly LeftSpendMove[]): SpendByDayRow[] {
  if (moves.length === 0) return [...rows];
  const byKey = new Map(rows.map((row) => [`${row.day}\u0000${row.group}`, { ...row }]));
  const groupOf = (day: string, group: string): SpendByDayRow => {
    const key = `${day}\u0000${group}`;
    let row = byKey.get(key);
    if (row === undefined) {
      row = emptySpendGroup(day, group);
      byKey.set(key, row);
    }
    return row;
  };
  for (const move of moves) {
    groupOf(move.day, move.answered).costCredits -= move.credits;
    groupOf(move.day, move.left).costCredits += move.credits;
  }
  // As the query orders them: by day, then group, in code-point order (SQLite's BINARY collation for these ASCII-led ids).
  return [...byKey.values()].sort((a, b) => compare(a.day, b.day) || compare(String(a.group), String(b.group)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
