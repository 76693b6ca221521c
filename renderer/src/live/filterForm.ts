import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import { MAX_SEARCH_TEXT_CHARS, SEARCH_TEXT_TOO_LONG, type RequestFilters, type StatusFilter } from '../../../proxy/contracts/requests.ts';

export type TimeWindow = 'all' | '15m' | '1h' | '24h' | '7d';

/** What the filter bar's controls hold, all as typed (strings). */
export interface FilterForm {
  window: TimeWindow;
  profileId: string;
  model: string;
  client: string;
  status: string;
  errorClass: string;
  /** The exact path a client called (from the Endpoint facet). */
  path: string;
  text: string;
}

export const EMPTY_FILTER_FORM: FilterForm = {
  window: 'all',
  profileId: '',
  model: '',
  client: '',
  status: '',
  errorClass: '',
  path: '',
  text: '',
};

const WINDOW_MS: Record<Exclude<TimeWindow, 'all'>, number> = {
  '15m': 15 * 60_000,
  '1h': 60 * 60_000,
  '24h': 24 * 60 * 60_000,
  '7d': 7 * 24 * 60 * 60_000,
};

const STATUS_WORDS: Record<string, 'ok' | 'error'> = {
  ok: 'ok',
  success: 'ok',
  succeeded: 'ok',
  error: 'error',
  errors: 'error',
  failed: 'error',
  failure: 'error',
  failures: 'error',
  fail: 'error',
};

/** The status filter for what was typed; undefined when blank or not understood (filterProblems says which). */
function parseStatus(value: string): StatusFilter | undefined {
  const trimmed = value.trim().toLowerCase();
  const word = STATUS_WORDS[trimmed];
  if (word) return word;
  if (/^[1-5]\d\d$/.test(trimmed)) return Number(trimmed);
  return undefined;
}

/** What the filter bar cannot use, per field, so nothing typed is ignored silently. */
export function filterProblems(form: FilterForm): Partial<Record<keyof FilterForm, string>> {
  const problems: Partial<Record<keyof FilterForm, string>> = {};
  if (form.status.trim() !== '' && parseStatus(form.status) === undefined)
    problems.status = `"${form.status.trim()}" is not a status: type ok, error (or failed), or a code such as 429.`;
  if (form.text.trim().length > MAX_SEARCH_TEXT_CHARS) problems.text = SEARCH_TEXT_TOO_LONG;
  if (form.model.includes('*') && !/^[^*]+\*$/.test(form.model.trim()))
    problems.model = 'Use * only at the end, after the start of an id: gpt-4* matches every id that starts with gpt-4.';
  return problems;
}

/** The API filters for a form, with the time window anchored at `nowMs`. */
export function filtersFromForm(form: FilterForm, nowMs: number): RequestFilters {
  const filters: RequestFilters = {};
  if (form.window !== 'all') filters.fromMs = nowMs - WINDOW_MS[form.window];
  if (form.profileId.trim()) filters.profileId = form.profileId.trim();
  if (form.model.trim() && !filterProblems(form).model) filters.model = form.model.trim();
  if (form.client.trim()) filters.client = form.client.trim();
  const status = parseStatus(form.status);
  if (status !== undefined) filters.status = status;
  if (form.errorClass) filters.errorClass = form.errorClass as ErrorClass;
  if (form.path.trim()) filters.path = form.path.trim();
  if (form.text.trim() && !filterProblems(form).text) filters.text = form.text.trim();
  return filters;
}

/** The fields a value seen in a row can filter by (a click in the list or the detail). */
export type FilterField = 'client' | 'profileId' | 'model' | 'status';
