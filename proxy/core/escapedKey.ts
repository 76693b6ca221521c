import type { KeyMasker } from './keyMasker.ts';

/**
 * JSON may write any character of a string as `\uXXXX`, and `/` as `\/` (PHP's json_encode,
 * Python's ensure_ascii for other characters): the key is then in no form the text shows, yet
 * whole in every string a client parses out of it. Each escape is matched whole, left to right, so
 * the `u` after an escaped backslash (`\\u002d`, the text `\u002d`) is never taken for an escape.
 */
const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(.))/gs;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The text with the escapes of printable ASCII (all a key's forms are made of) written as the
 * characters: `"` and `\` stay escaped, so JSON stays JSON and means what it meant.
 */
function withKeyCharactersUnescaped(jsonText: string): string {
  return jsonText.replace(JSON_ESCAPE, (sequence, hex: string | undefined, other: string | undefined) => {
    if (hex === undefined) return other === '/' ? '/' : sequence;
    const code = Number.parseInt(hex, 16);
    return code >= 0x20 && code < 0x7f && code !== QUOTE && code !== BACKSLASH ? String.fromCharCode(code) : sequence;
  });
}

/** Whether this JSON text spells out the key only once its escapes are undone (the raw forms are the masker's). */
export function holdsEscapedKey(masker: KeyMasker, jsonText: string): boolean {
  if (!jsonText.includes('\\u') && !jsonText.includes('\\/')) return false;
  return masker.holdsForm(withKeyCharactersUnescaped(jsonText));
}

/** JSON text that holds the key escaped, with the key masked: its text means what it meant, but for the key. */
export function maskEscapedKey(masker: KeyMasker, jsonText: string): string {
  return masker.maskText(withKeyCharactersUnescaped(jsonText));
}
