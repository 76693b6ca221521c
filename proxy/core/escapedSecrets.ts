import { isBase64Code } from './base64Alphabet.ts';

/**
 * Where a gateway puts a key back, it may escape it for that place, and whoever reads it there
 * undoes the escapes: the key is then in no form the text shows, yet whole to its reader. The
 * escapes read here are each place's way of writing any character: percent-encoding in a URL or a
 * form (RFC 3986 section 2.1: any octet as %XX, either case of hex), JSON's `\uXXXX` and `\/`
 * (RFC 8259 section 7; PHP's json_encode writes `\/`), and HTML character references, numeric or
 * named (`&#45;`, `&#x2d;`, `&sol;`: WHATWG HTML section 13.5). Each escape is matched whole, left
 * to right, so the `u` after an escaped backslash (`\\u002d`, the text `\u002d`) is never taken for
 * an escape. Only the key's own span is replaced: the text around it keeps its escapes and means
 * what it meant (JSON stays JSON, a URL stays that URL).
 */
// A numeric reference's leading zeros are read however many (HTML reads every digit, WHATWG HTML 13.2.5.80):
// counted among the digits, `&#000000045;` was read as `&#0000000` and `45;`, and a key padded so passed unmasked.
// A backslash escapes only what JSON lets it (RFC 8259 section 7): taken for an escape of a `%` or `&` after it,
// it hid the percent-escape or reference there, which a URL or HTML decoder reads all the same (`\&#115;` is `\s`).
// A line break is matched first, so a JSON `\n` is offered to `wrappedLineBreakAt` before it is read as written.
const ESCAPE =
  /(\r?\n|\\r\\n|\\n)|%([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])|&#(?:[xX]0*([0-9a-fA-F]{1,6})|0*([0-9]{1,7}));?|&(lowbar|period|sol|plus|equals);/g;
/**
 * Base64 is written in lines: MIME's of 76 characters (RFC 2045 section 6.8; `base64`'s default
 * too), PEM's of 64 (RFC 7468 section 2), and their decoders (`base64 -d`, Python's `b64decode`)
 * read past the breaks, so a key's base64 form may be cut by a break anywhere. A break read as
 * nothing ends a run of at least this many base64 characters (every line but the last is that
 * long) and is followed by another. A shorter run is prose's or code's line end, a path or an
 * identifier: taken for a wrapped line, one such line in a 180 KB agent request cost every masking
 * check of it a full reading, 0.8 ms more (measured on this machine, 2026-11-28).
 */
const MIN_WRAPPED_LINE_CHARS = 48;
const isBase64Char = (text: string, index: number): boolean => isBase64Code(text.charCodeAt(index));

/** Whether the MIN_WRAPPED_LINE_CHARS characters before `index` are all base64. */
function endsBase64Line(text: string, index: number): boolean {
  if (index < MIN_WRAPPED_LINE_CHARS) return false;
  // From the end back: prose's and code's lines fail at their last characters.
  for (let at = index - 1; at >= index - MIN_WRAPPED_LINE_CHARS; at -= 1) if (!isBase64Char(text, at)) return false;
  return true;
}

/** Whether the line break at `index`, `breakChars` long, joins two lines of base64 (see MIN_WRAPPED_LINE_CHARS). */
function wrappedLineBreakAt(text: string, index: number, breakChars: number): boolean {
  return isBase64Char(text, index + breakChars) && endsBase64Line(text, index);
}

/**
 * Whether the text holds a line break between two lines of base64, raw or written into a JSON
 * string. A break is no base64, so the next one that could end a wrapped line is at least
 * MIN_WRAPPED_LINE_CHARS further: searched from there, code's short lines cost half the searches.
 */
function holdsWrappedLine(text: string): boolean {
  for (const [lineBreak, returnBefore] of LINE_BREAKS) {
    for (
      let at = text.indexOf(lineBreak, MIN_WRAPPED_LINE_CHARS);
      at !== -1;
      at = text.indexOf(lineBreak, at + MIN_WRAPPED_LINE_CHARS + 1)
    ) {
      const start = text.startsWith(returnBefore, at - returnBefore.length) ? at - returnBefore.length : at;
      if (wrappedLineBreakAt(text, start, at + lineBreak.length - start)) return true;
    }
  }
  return false;
}
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Whether bytes hold a raw line break between two lines of base64, as holdsWrappedLine reads text:
 * a large body is made text for such a break only, not for every line feed (a pretty-printed 3.7 MB
 * answer went 0.3 -> 1.3 ms through the relay when any line feed sent it; review R1, 2026-11-28).
 * JSON's written `\n` begins with a backslash, which sends a body to text anyway.
 */
export function holdsWrappedLineBytes(bytes: Buffer): boolean {
  for (
    let at = bytes.indexOf(LINE_FEED, MIN_WRAPPED_LINE_CHARS);
    at !== -1;
    at = bytes.indexOf(LINE_FEED, at + MIN_WRAPPED_LINE_CHARS + 1)
  ) {
    const start = bytes[at - 1] === CARRIAGE_RETURN ? at - 1 : at;
    if (!isBase64Code(bytes[at + 1]) || start < MIN_WRAPPED_LINE_CHARS) continue;
    let lineIsBase64 = true;
    for (let before = start - 1; lineIsBase64 && before >= start - MIN_WRAPPED_LINE_CHARS; before -= 1) {
      lineIsBase64 = isBase64Code(bytes[before]);
    }
    if (lineIsBase64) return true;
  }
  return false;
}

/** A line feed and the carriage return that may come before it, raw and as JSON writes them in a string. */
const LINE_BREAKS = [
  ['\n', '\r'],
  ['\\n', '\\r'],
] as const;

/**
 * The most characters one escape takes (`&#x00002d;`): an escaped form is at most this many times its length.
 * A form whose references are padded past that is masked in a whole text or event; across a cut, only within it.
 */
export const MAX_ESCAPE_CHARS = 10;
/** The named references of characters a key or its encodings may hold (the others are letters and digits). */
const NAMED_CHARACTERS: Readonly<Record<string, string>> = { lowbar: '_', period: '.', sol: '/', plus: '+', equals: '=' };
const FIRST_PRINTABLE = 0x20;
const LAST_PRINTABLE = 0x7e;

/**
 * Per list of forms (a masker's, a secret list's; both are kept and passed again), an escape of a
 * character some form holds: a text without one is read as it is, at the cost of one native search.
 * An escape of any other character can spell no part of a form, and is common: Go's encoding/json
 * writes `<`, `>` and `&` as `\u003c`, `\u003e` and `\u0026` by default (one-api and new-api are Go),
 * JSON writers escape `"`, and HTML escapes `'` as `&#39;`.
 */
const formEscapesByForms = new WeakMap<readonly string[], RegExp>();

function formEscapesOf(forms: readonly string[]): RegExp {
  let formEscapes = formEscapesByForms.get(forms);
  if (formEscapes === undefined) {
    formEscapes = escapesOfCharacters(new Set(forms.join('')));
    formEscapesByForms.set(forms, formEscapes);
  }
  return formEscapes;
}

/** Every escape ESCAPE reads as one of these characters (its hex in either case, a reference's leading zeros too), or none. */
function escapesOfCharacters(characters: ReadonlySet<string>): RegExp {
  const codes = [...characters]
    .map((character) => character.charCodeAt(0))
    .filter((code) => code >= FIRST_PRINTABLE && code <= LAST_PRINTABLE);
  if (codes.length === 0) return /(?!)/;
  const hex = `(?:${codes.map((code) => code.toString(16)).join('|')})`;
  const names = Object.keys(NAMED_CHARACTERS).filter((name) => characters.has(NAMED_CHARACTERS[name] as string));
  const escapes = [`%${hex}`, String.raw`\\u00${hex}`, `&#x0*${hex}`, `&#0*(?:${codes.join('|')})`];
  if (characters.has('/')) escapes.push(String.raw`\\\/`);
  if (names.length > 0) escapes.push(`&(?:${names.join('|')});`);
  return new RegExp(escapes.join('|'), 'i');
}

/**
 * The printable ASCII character an escape writes (every form of a key is made of those), the empty
 * string for a break between lines of base64, or null: read as written.
 */
function escapedCharacter(match: RegExpExecArray | string[], index: number, text: string): string | null {
  const [, lineBreak, percentHex, jsonHex, jsonOther, htmlHex, htmlDecimal, htmlName] = match;
  if (lineBreak !== undefined) return wrappedLineBreakAt(text, index, lineBreak.length) ? '' : null;
  if (jsonOther !== undefined) return jsonOther === '/' ? '/' : null;
  if (htmlName !== undefined) return NAMED_CHARACTERS[htmlName] ?? null;
  const hex = percentHex ?? jsonHex ?? htmlHex;
  const code = hex === undefined ? Number.parseInt(htmlDecimal ?? '', 10) : Number.parseInt(hex, 16);
  return code >= FIRST_PRINTABLE && code <= LAST_PRINTABLE ? String.fromCharCode(code) : null;
}

/** The text as its reader reads it, or null when it has no escape of a character the forms hold. */
export function unescapedReading(text: string, forms: readonly string[]): string | null {
  if (!formEscapesOf(forms).test(text) && !holdsWrappedLine(text)) return null;
  return readingOf(text);
}

/** The text with every escape undone and every wrapped break read as nothing; null when none was. */
function readingOf(text: string): string | null {
  let changed = false;
  const reading = text.replace(ESCAPE, (...match: string[]) => {
    // The arguments end with the offset and the whole text (ESCAPE has no named groups).
    const character = escapedCharacter(match, match[match.length - 2] as unknown as number, text);
    if (character === null) return match[0] as string;
    changed = true;
    return character;
  });
  return changed ? reading : null;
}

/** A line break raw or as JSON writes it, as ESCAPE's first group reads it. */
const LINE_BREAK = /\r?\n|\\r\\n|\\n/g;

/**
 * Whether a form spans a wrapped break: only the text around such breaks (as far as the longest
 * form reaches) is read, its wrapped breaks as nothing. A text that merely looks wrapped (a PEM
 * certificate, a comment's dashes) read whole made every check of a 180 KB request 0.09 -> 0.8-1.3
 * ms (review R1, 2026-11-28); a form across no such break is the raw search's.
 */
function wrappedRunsHoldForm(text: string, forms: readonly string[]): boolean {
  const reach = Math.max(...forms.map((form) => form.length));
  const breaks = new RegExp(LINE_BREAK.source, 'g');
  let windowFrom = -1;
  let windowTo = -1;
  let reading = '';
  let copiedUpTo = 0;
  const windowHoldsForm = (): boolean => {
    reading += text.slice(copiedUpTo, windowTo);
    return forms.some((form) => reading.includes(form));
  };
  for (let match = breaks.exec(text); match !== null; match = breaks.exec(text)) {
    const breakEnd = match.index + match[0].length;
    if (!wrappedLineBreakAt(text, match.index, match[0].length)) continue;
    if (match.index - reach > windowTo) {
      if (windowTo !== -1 && windowHoldsForm()) return true;
      windowFrom = Math.max(0, match.index - reach);
      reading = '';
      copiedUpTo = windowFrom;
    }
    reading += text.slice(copiedUpTo, match.index);
    copiedUpTo = breakEnd;
    windowTo = Math.min(text.length, breakEnd + reach);
  }
  return windowTo !== -1 && windowHoldsForm();
}

/** Whether the text spells out one of the forms only once its escapes are undone (the raw forms are the caller's). */
export function holdsEscapedForm(text: string, forms: readonly string[]): boolean {
  if (!formEscapesOf(forms).test(text) && !(holdsWrappedLine(text) && wrappedRunsHoldForm(text, forms))) return false;
  const reading = readingOf(text);
  if (reading === null) return false;
  for (const form of forms) if (reading.includes(form)) return true;
  return false;
}

/** Where each character of the reading stands in the text: it starts at `starts[i]` and ends before `ends[i]`. */
function readingMap(text: string): { reading: string; starts: number[]; ends: number[] } {
  let reading = '';
  const starts: number[] = [];
  const ends: number[] = [];
  const copyPlain = (from: number, to: number): void => {
    for (let index = from; index < to; index += 1) {
      starts.push(index);
      ends.push(index + 1);
    }
    reading += text.slice(from, to);
  };
  let copiedUpTo = 0;
  for (const match of text.matchAll(ESCAPE)) {
    const character = escapedCharacter(match, match.index, text);
    if (character === null) continue;
    copyPlain(copiedUpTo, match.index);
    // A line break read as nothing has no character of the reading: a form across it spans it.
    if (character !== '') {
      starts.push(match.index);
      ends.push(match.index + match[0].length);
      reading += character;
    }
    copiedUpTo = match.index + match[0].length;
  }
  copyPlain(copiedUpTo, text.length);
  return { reading, starts, ends };
}

/**
 * Each escaped occurrence of a form replaced, in the text as written, by the word or by what
 * `replacementOf` makes of the escaped text it replaces. Forms come longest first, so a longer
 * form is never cut by a shorter one.
 */
export function replaceEscapedForms(text: string, forms: readonly string[], replacement: (escaped: string) => string): string {
  if (!holdsEscapedForm(text, forms)) return text;
  const { reading, starts, ends } = readingMap(text);
  const spans: Array<{ from: number; to: number }> = [];
  const overlaps = (from: number, to: number): boolean => spans.some((span) => from < span.to && span.from < to);
  for (const form of forms) {
    for (let at = reading.indexOf(form); at !== -1; at = reading.indexOf(form, at + form.length)) {
      const from = starts[at] as number;
      const to = ends[at + form.length - 1] as number;
      if (!overlaps(from, to)) spans.push({ from, to });
    }
  }
  spans.sort((a, b) => a.from - b.from);
  let result = '';
  let copiedUpTo = 0;
  for (const { from, to } of spans) {
    result += text.slice(copiedUpTo, from) + replacement(text.slice(from, to));
    copiedUpTo = to;
  }
  return result + text.slice(copiedUpTo);
}

/** An escape cut short by the text's end (`%2`, `\u00`, `&#x2`, `&low`): the next piece may complete it. */
const ESCAPE_CUT_SHORT = /(?:%[0-9a-fA-F]?|\\(?:u[0-9a-fA-F]{0,3})?|&#?[xX]?[0-9a-fA-F]*|&[a-z]{1,6})$/;
/** The characters an escape, whole or cut short, may end with: `%`, `\`, `&`, `#`, `;`, letters and digits. */
const ESCAPE_END = new Uint8Array(128);
for (const char of '%\\&#;0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz') ESCAPE_END[char.charCodeAt(0)] = 1;

/** Whether a text ending with this character may end with an escape, whole or cut short. */
export function mayEndEscape(code: number): boolean {
  return code < 128 && ESCAPE_END[code] === 1;
}

/**
 * How many of the text's last characters could be the start of an escaped form, to be held until
 * the next piece decides: an escape cut short, and before it the escapes and characters whose
 * reading could begin a form (`readingHeldChars` says how many of a reading's last characters could).
 */
export function escapedHeldChars(text: string, readingHeldChars: (reading: string) => number): number {
  if (!/[%\\&]/.test(text)) return 0;
  const cutShort = ESCAPE_CUT_SHORT.exec(text)?.[0].length ?? 0;
  const whole = text.slice(0, text.length - cutShort);
  const { reading, starts } = readingMap(whole);
  const heldReading = readingHeldChars(reading);
  return (heldReading === 0 ? 0 : whole.length - (starts[reading.length - heldReading] as number)) + cutShort;
}
