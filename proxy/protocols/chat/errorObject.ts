import { isRecord } from '../../core/isRecord.ts';

/** The `error` object of an OpenAI-shaped body (or the body itself); null when the body is no JSON object. */
export function errorObjectOf(bodyText: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  return isRecord(parsed['error']) ? parsed['error'] : parsed;
}
