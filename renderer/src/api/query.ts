import type { RequestListQuery } from '../../../proxy/contracts/requests.ts';

/** Keys in a stable order so equal queries give equal strings (and cache keys). */
const QUERY_KEYS = ['fromMs', 'toMs', 'profileId', 'model', 'client', 'path', 'status', 'errorClass', 'text', 'cursor', 'limit'] as const;

/** The query string for GET /requests: empty and blank values are left out. */
export function requestQueryString(query: RequestListQuery): string {
  const params = new URLSearchParams();
  for (const key of QUERY_KEYS) {
    const value = query[key];
    if (value === undefined || value === null) continue;
    const text = String(value).trim();
    if (text !== '') params.set(key, text);
  }
  const encoded = params.toString();
  return encoded === '' ? '' : `?${encoded}`;
}
