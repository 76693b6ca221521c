import { isRecord, parsedRecord } from '../../core/isRecord.ts';

/** The `error` object of an OpenAI-shaped body (or the body itself); null when the body is no JSON object. */
export function errorObjectOf(bodyText: string): Record<string, unknown> | null {
  const parsed = parsedRecord(bodyText);
  if (parsed === null) return null;
  return isRecord(parsed['error']) ? parsed['error'] : parsed;
}
