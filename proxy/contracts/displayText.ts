/**
 * Bidi controls, zero-width characters and the BOM: none shows, and an override (U+202E) reverses
 * every character after it up to the end of its line, the window's own words included.
 */
const INVISIBLE_CHARACTERS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/**
 * A name or message a client or gateway chose (a model id, a client or session name, an error), with
 * its invisible characters written out as ⟨U+202E⟩: a model id the gateway does not know because of
 * a zero-width space then shows why, and an override cannot turn the text around it backwards.
 * Shared by the window and the desktop shell's tray and notifications.
 */
export function showInvisible(text: string): string {
  return text.replace(
    INVISIBLE_CHARACTERS,
    (character) => `⟨U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}
