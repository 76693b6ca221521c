import type { RequestFilters, RequestSummary } from '../../../proxy/contracts/requests.ts';
import { IN_FLIGHT_SUMMARY_DEFAULTS, LIVE_TEXT_LIMIT_CHARS, type LiveRequestUpdate } from '../../../proxy/contracts/liveEvents.ts';

/** A row of the Live list: the summary plus the stream text seen so far (in-flight rows only). */
export interface LiveRow extends RequestSummary {
  text: string;
}

/**
 * The row after one live update, or null when the update is for a request we never saw start
 * (nothing to show until the log has it). Finished rows drop their text: the detail view reads it
 * from the log, and 50,000 rows must not each hold a stream.
 */
export function applyUpdate(row: LiveRow | undefined, update: LiveRequestUpdate): LiveRow | null {
  const base: LiveRow | null =
    row ??
    (update.fields.startedAtMs === undefined
      ? null
      : { ...IN_FLIGHT_SUMMARY_DEFAULTS, id: update.requestId, startedAtMs: update.fields.startedAtMs, text: '' });
  if (!base) return null;
  const merged: LiveRow = { ...base, ...update.fields, id: base.id, text: base.text + update.appendText };
  if (merged.state !== 'in_flight') merged.text = '';
  else if (merged.text.length > LIVE_TEXT_LIMIT_CHARS) merged.text = merged.text.slice(-LIVE_TEXT_LIMIT_CHARS);
  return merged;
}

/** Index at which a row started at `startedAtMs` belongs in a newest-first list. */
export function insertionIndex(order: readonly string[], rows: ReadonlyMap<string, LiveRow>, startedAtMs: number): number {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const middleStart = rows.get(order[middle] as string)?.startedAtMs ?? 0;
    if (middleStart >= startedAtMs) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The same rules the server applies to a page, for rows that arrive live. */
export function matchesFilters(row: LiveRow, filters: RequestFilters): boolean {
  if (filters.fromMs !== undefined && row.startedAtMs < filters.fromMs) return false;
  if (filters.toMs !== undefined && row.startedAtMs > filters.toMs) return false;
  if (filters.profileId && row.profileId !== filters.profileId) return false;
  if (filters.model && !matchesModel(row, filters.model)) return false;
  if (filters.client && row.clientName !== filters.client) return false;
  if (filters.path && row.clientPath !== filters.path) return false;
  if (filters.errorClass && row.errorClass !== filters.errorClass) return false;
  if (filters.status !== undefined && !matchesStatus(row, filters.status)) return false;
  if (filters.text) {
    const needle = filters.text.toLowerCase();
    const haystack = [row.clientPath, row.requestedModel, row.responseModel, row.clientName, row.text].join('\n').toLowerCase();
    if (!haystack.includes(needle)) return false;
  }
  return true;
}

function matchesModel(row: LiveRow, model: string): boolean {
  const names = [row.requestedModel, row.responseModel];
  if (!model.endsWith('*')) return names.includes(model);
  const prefix = model.slice(0, -1).toLowerCase();
  return names.some((name) => name?.toLowerCase().startsWith(prefix) ?? false);
}

function matchesStatus(row: LiveRow, status: NonNullable<RequestFilters['status']>): boolean {
  // An in-flight row has no status yet; it belongs to "ok" until it fails.
  if (status === 'ok') return row.errorClass === null && (row.status === null || row.status < 400);
  if (status === 'error') return row.errorClass !== null || (row.status !== null && row.status >= 400);
  return row.status === status;
}
