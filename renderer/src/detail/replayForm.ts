import { formatCredits, formatDuration } from '../common/format.ts';
import type { LiveRow } from '../live/liveRows.ts';
import type { LiveSnapshot } from '../live/liveStore.ts';

/** Why the edited body cannot be sent, checked before it leaves the window; null when it can. */
export function editedBodyProblem(body: string, contentType: string | null): string | null {
  if (body.trim() === '' || (contentType !== null && !/\bjson\b/i.test(contentType))) return null;
  try {
    JSON.parse(body);
    return null;
  } catch (error) {
    return `The body is not valid JSON (${(error as Error).message}). Correct it, then send the replay.`;
  }
}

const FORMAT_OF = {
  tokens: (size: number) => size.toLocaleString('en-US'),
  ms: formatDuration,
  credits: formatCredits,
} as const;

/** A difference with its sign, as the window writes the figure; empty when there is none or either side has no figure. */
export function signedChange(value: number | null, unit: keyof typeof FORMAT_OF): string {
  if (value === null || Math.round(value * 1e9) === 0) return '';
  return `${value > 0 ? '+' : '−'}${FORMAT_OF[unit](Math.abs(value))}`;
}

/** How far from the top of the list a replay just sent can be: newer requests arriving meanwhile push it down. */
const RUNNING_REPLAY_LOOKAHEAD = 50;

/** The replay of `originalId` still running, from the newest live rows (it started a moment ago); undefined when none. */
export function runningReplayOf(snapshot: LiveSnapshot, originalId: string): LiveRow | undefined {
  for (const id of snapshot.order.slice(0, RUNNING_REPLAY_LOOKAHEAD)) {
    const row = snapshot.rows.get(id);
    if (row?.replayOf === originalId && row.state === 'in_flight') return row;
  }
  return undefined;
}
