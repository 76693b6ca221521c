import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import type { RequestFilters, StatusFilter } from '../../../proxy/contracts/api.ts';

export type TimeWindow = 'all' | '15m' | '1h' | '24h' | '7d';

/** What the filter bar's controls hold, all as typed (strings). */
export interface FilterForm {
  window: TimeWindow;
  profileId: string;
  model: string;
  client: string;
  status: string;
  errorClass: string;
  text: string;
}

export const EMPTY_FILTER_FORM: FilterForm = { window: 'all', profileId: '', model: '', client: '', status: '', errorClass: '', text: '' };

const WINDOW_MS: Record<Exclude<TimeWindow, 'all'>, number> = {
  '15m': 15 * 60_000,
  '1h': 60 * 60_000,
  '24h': 24 * 60 * 60_000,
  '7d': 7 * 24 * 60 * 60_000,
};

function parseStatus(value: string): StatusFilter | undefined {
  const trimmed = value.trim();
  if (trimmed === 'ok' || trimmed === 'error') return trimmed;
  if (/^\d{3}$/.test(trimmed)) return Number(trimmed);
  return undefined;
}

/** The API filters for a form, with the time window anchored at `nowMs`. */
export function filtersFromForm(form: FilterForm, nowMs: number): RequestFilters {
  const filters: RequestFilters = {};
  if (form.window !== 'all') filters.fromMs = nowMs - WINDOW_MS[form.window];
  if (form.profileId.trim()) filters.profileId = form.profileId.trim();
  if (form.model.trim()) filters.model = form.model.trim();
  if (form.client.trim()) filters.client = form.client.trim();
  const status = parseStatus(form.status);
  if (status !== undefined) filters.status = status;
  if (form.errorClass) filters.errorClass = form.errorClass as ErrorClass;
  if (form.text.trim()) filters.text = form.text.trim();
  return filters;
}
