import { formatCredits } from '../../../proxy/contracts/amounts.ts';

/** Display formatting for the window; amounts arrive already converted from the proxy. */

/** Shared with the proxy, the tray and the CLI, so an amount reads the same everywhere. */
export { formatCredits, formatGatewayCharge, formatMoney } from '../../../proxy/contracts/amounts.ts';

/** A request that reached no model (refused, failed before an answer) has no usage: its cost is none, not "unpriced". */
function reachedNoModel(row: { costCredits: number | null; inputTokens: number | null }): boolean {
  return row.costCredits === null && row.inputTokens === null;
}

/** The Live list's cost cell. */
export function formatRowCost(row: { costCredits: number | null; inputTokens: number | null }): string {
  return reachedNoModel(row) ? '—' : formatCredits(row.costCredits);
}

/** The request detail's cost, in words. */
export function describeCost(row: { costCredits: number | null; inputTokens: number | null }): string {
  if (reachedNoModel(row)) return 'none: no model answered, so there is no usage to price';
  return row.costCredits === null ? 'unpriced' : `${formatCredits(row.costCredits)} credits`;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

/** Token counts as people read them: 9999, 15.1k, 1.5M. */
export function formatTokens(count: number | null): string {
  if (count === null) return '—';
  if (count < 10_000) return String(count);
  if (count < 1_000_000) return `${(count / 1_000).toFixed(1)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

const TIME = { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' } as const;

/**
 * The one way the window writes a moment, in the user's zone and locale: the time alone today, the
 * date before it on other days (and the year when not this one). List, detail and Models share it.
 */
export function formatTimestamp(epochMs: number, nowMs: number = Date.now()): string {
  const at = new Date(epochMs);
  const now = new Date(nowMs);
  if (at.toDateString() === now.toDateString()) return at.toLocaleTimeString(undefined, TIME);
  const sameYear = at.getFullYear() === now.getFullYear();
  return at.toLocaleString(undefined, { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }), ...TIME });
}

/** The zone the window's times are in, for a tooltip: "Europe/Oslo". */
export function timeZoneName(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export { showInvisible } from '../../../proxy/contracts/displayText.ts';

export function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
}
