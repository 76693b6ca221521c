import { z } from 'zod';
import { LOCAL_ERROR_CLASSES, UPSTREAM_ERROR_CLASSES } from '../../contracts/errors.ts';
import { MAX_PAGE_LIMIT, type RequestCursor, type RequestListFilter } from '../../contracts/log.ts';
import { MAX_SEARCH_TEXT_CHARS, SEARCH_TEXT_TOO_LONG } from '../../contracts/requests.ts';
import { ApiError } from './http.ts';

const optionalText = z.string().trim().min(1).max(500).optional();
const epochMs = z.coerce.number().int().nonnegative().optional();
/**
 * SQLite's LIKE and FTS5 query parser both end text at a NUL: `ab\0cd` failed the search, `\0\0\0`
 * matched every request. No logged text holds one (a body with a NUL is logged as binary).
 */
const searchText = z
  .string()
  .trim()
  .min(1)
  .max(MAX_SEARCH_TEXT_CHARS, SEARCH_TEXT_TOO_LONG)
  .optional()
  .refine((text) => !text?.includes('\0'), 'a search cannot hold a NUL character');

const querySchema = z.object({
  fromMs: epochMs,
  toMs: epochMs,
  profileId: optionalText,
  model: optionalText,
  client: optionalText,
  path: optionalText,
  status: z
    .union([
      z.enum(['ok', 'error']),
      z
        .string()
        .regex(/^\d{3}$/, 'a three-digit status, ok or error')
        .transform(Number),
    ])
    .optional(),
  errorClass: z.enum([...UPSTREAM_ERROR_CLASSES, ...LOCAL_ERROR_CLASSES]).optional(),
  text: searchText,
  cursor: optionalText,
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
});

/** The page cursor is opaque to the window: the last row's start time and id, base64url JSON. */
export function encodeCursor(cursor: RequestCursor): string {
  return Buffer.from(JSON.stringify([cursor.startedAtMs, cursor.id])).toString('base64url');
}

export function decodeCursor(text: string): RequestCursor {
  try {
    const [startedAtMs, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof startedAtMs === 'number' && typeof id === 'string') return { startedAtMs, id };
  } catch {
    // Falls through to the error below.
  }
  throw new ApiError('invalid', 'The page cursor is not one Airlock gave out: reload the list.', 'cursor');
}

/** GET /requests query string → the log's filter (unknown parameters are ignored). */
export function parseRequestQuery(query: Record<string, unknown>): RequestListFilter {
  const parsed = querySchema.parse(query);
  const filter: RequestListFilter = {};
  if (parsed.fromMs !== undefined) filter.fromMs = parsed.fromMs;
  if (parsed.toMs !== undefined) filter.toMs = parsed.toMs;
  if (parsed.profileId) filter.profileId = parsed.profileId;
  if (parsed.model) filter.model = parsed.model;
  if (parsed.client) filter.clientName = parsed.client;
  if (parsed.path) filter.clientPath = parsed.path;
  if (parsed.status !== undefined) filter.status = parsed.status;
  if (parsed.errorClass) filter.errorClass = parsed.errorClass;
  if (parsed.text) filter.text = parsed.text;
  if (parsed.cursor) filter.beforeCursor = decodeCursor(parsed.cursor);
  if (parsed.limit !== undefined) filter.limit = parsed.limit;
  return filter;
}
