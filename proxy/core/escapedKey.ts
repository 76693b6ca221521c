import { isRecord } from './isRecord.ts';
import type { KeyMasker } from './keyMasker.ts';

/**
 * JSON may write any character of a string as `\uXXXX`, and `/` as `\/` (PHP's json_encode,
 * Python's ensure_ascii for other characters): the key is then in no form the text shows, yet
 * whole in every string a client parses out of it. The text is searched with those escapes undone;
 * only JSON that holds the key so is parsed and written again, its strings masked.
 */
const JSON_ESCAPE = /\\u([0-9a-fA-F]{4})|\\\//g;

function withEscapesUndone(jsonText: string): string {
  return jsonText.replace(JSON_ESCAPE, (_escape, hex: string | undefined) =>
    hex === undefined ? '/' : String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** Whether this JSON text spells out the key only once its escapes are undone (the raw forms are the masker's). */
export function holdsEscapedKey(masker: KeyMasker, jsonText: string): boolean {
  if (!jsonText.includes('\\u') && !jsonText.includes('\\/')) return false;
  return masker.holdsForm(withEscapesUndone(jsonText));
}

/** The value with the key masked in every string it holds, property names too. */
export function maskedJsonValue(masker: KeyMasker, value: unknown): unknown {
  if (typeof value === 'string') return masker.maskText(value);
  if (Array.isArray(value)) return value.map((item) => maskedJsonValue(masker, item));
  if (!isRecord(value)) return value;
  const masked: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) masked[masker.maskText(name)] = maskedJsonValue(masker, item);
  return masked;
}
