/**
 * Bidi controls, zero-width characters and the BOM: none shows, and an override (U+202E) reverses
 * every character after it up to the end of its line, the window's own words included.
 */
const INVISIBLE_CHARACTERS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const INVISIBLE_CHARACTER = new RegExp(INVISIBLE_CHARACTERS.source);

/** ZWNJ and ZWJ: invisible, but writing needs them (emoji sequences, Persian and Indic words). */
const JOINERS = new Set(['\u200C', '\u200D']);

/** A visible non-ASCII code unit (a letter of another script, an emoji's surrogate or variation selector). */
function isJoinable(unit: string | undefined): boolean {
  return unit !== undefined && unit.charCodeAt(0) > 0x7f && !/\s/.test(unit) && !INVISIBLE_CHARACTER.test(unit);
}

/**
 * A name or message a client or gateway chose (a model id, a client or session name, an error), with
 * its invisible characters written out as ⟨U+202E⟩: a model id the gateway does not know because of
 * a zero-width space then shows why, and an override cannot turn the text around it backwards. A
 * joiner between two non-ASCII characters is left, as the emoji or the word needs it; among ASCII
 * or at a word's edge it only hides a difference, and is written out.
 * Shared by the window and the desktop shell's tray and notifications.
 */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE_CHARACTERS, (character, offset: number) =>
    JOINERS.has(character) && isJoinable(text[offset - 1]) && isJoinable(text[offset + 1])
      ? character
      : `⟨U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

/** The characters met most often, said by name; any other is "a control character". */
const CHARACTER_NAMES: Readonly<Record<string, string>> = {
  '\t': 'a tab',
  '\n': 'a line break',
  '\r': 'a carriage return',
  '\u001b': 'an escape character',
  '\u0085': 'a next-line character',
  '\u2028': 'a line separator',
  '\u2029': 'a paragraph separator',
};

/**
 * Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: in a model id or a profile name they
 * end a line where the id goes on (aider's YAML reader takes U+2028 as a line break: PyYAML's scanner, and the file
 * connect wrote no longer parsed), or drive the terminal that lists them.
 */
const LINE_BREAKING_CHARACTER = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/** The first such character, as a refusal names it ("U+2028 (a line separator) at character 4"); null when there is none. */
export function lineBreakingCharacter(text: string): string | null {
  const found = LINE_BREAKING_CHARACTER.exec(text);
  if (found === null) return null;
  const character = found[0];
  const code = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return `U+${code} (${CHARACTER_NAMES[character] ?? 'a control character'}) at character ${found.index + 1}`;
}

/** Why a model id holding such a character (`lineBreakingCharacter`) is refused, the same in the window and the CLI. */
export function modelIdCharacterRefusal(found: string): string {
  return `a model id is one line of visible characters, and this one holds ${found}: copy the id again from the gateway's model list`;
}
