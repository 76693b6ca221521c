/**
 * The top-level members the body scan reads (jsonScan.ts), and how their keys are recognised:
 * spelled exactly, or in another letter case, which relays written in Go read as the same member
 * (encoding/json matches an object's keys to a struct's fields without case: golang/go#14750), and
 * which Airlock therefore refuses.
 */

/** Top-level members whose value is a literal (true, false, a number), read as the scan passes. */
export const LITERAL_KEYS: ReadonlySet<string> = new Set(['stream', 'max_tokens', 'max_completion_tokens', 'max_output_tokens', 'n']);
const KNOWN_KEY_NAMES = ['model', 'stream_options', ...LITERAL_KEYS];
/** One bit for each member read, to tell a repeat. */
export const MEMBER_BITS: ReadonlyMap<string, number> = new Map(KNOWN_KEY_NAMES.map((name, index) => [name, 1 << index]));
/**
 * Longer top-level keys cannot be one we look for, so their bytes are not kept: each of its
 * characters written as a `\uXXXX` escape (6 bytes) is the longest a known key can be.
 */
export const MAX_KEY_BYTES = 6 * Math.max(...KNOWN_KEY_NAMES.map((name) => name.length));

const KNOWN_KEYS = KNOWN_KEY_NAMES.map((key) => ({ key, bytes: Buffer.from(key) }));
/** Any other top-level key in lower-case ASCII: it names no member in any case, so its text is never decoded. */
export const OTHER_KEY = '';
const UPPER_A = 0x41;
const UPPER_Z = 0x5a;
const FIRST_NON_ASCII = 0x80;

/**
 * A top-level key's raw bytes (no escapes) as the scan keeps it: the member it spells exactly, its
 * text when it might spell one in another case (an upper-case or non-ASCII byte), else OTHER_KEY.
 */
export function knownKey(chunk: Buffer, start: number, end: number): string {
  for (const { key, bytes } of KNOWN_KEYS) {
    if (bytes.length !== end - start) continue;
    let index = 0;
    while (index < bytes.length && bytes[index] === chunk[start + index]) index += 1;
    if (index === bytes.length) return key;
  }
  for (let index = start; index < end; index += 1) {
    const byte = chunk[index]!;
    if ((byte >= UPPER_A && byte <= UPPER_Z) || byte >= FIRST_NON_ASCII) return chunk.toString('utf8', start, end);
  }
  return OTHER_KEY;
}

/**
 * Go's case folding (bytes.EqualFold, which encoding/json's name matching equals) maps these to
 * ASCII letters besides the upper-case ones: the Kelvin sign to k and the long s to s.
 */
const FOLDS_TO_ASCII = /[A-Z\u212A\u017F]/g;
const NON_ASCII_FOLDS: Readonly<Record<string, string>> = { '\u212A': 'k', '\u017F': 's' };

/** The member a key names in another letter case, as Go's encoding/json would read it; null when it names none or spells it exactly. */
export function memberInAnotherCase(key: string): string | null {
  if (MEMBER_BITS.has(key)) return null;
  const folded = key.replace(FOLDS_TO_ASCII, (letter) => NON_ASCII_FOLDS[letter] ?? letter.toLowerCase());
  return folded !== key && MEMBER_BITS.has(folded) ? folded : null;
}

/** The text of a string's raw contents; null when its escapes are not valid JSON. */
export function decodeJsonString(bytes: Buffer): string | null {
  const raw = bytes.toString('utf8');
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}
