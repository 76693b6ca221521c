/**
 * Cuts a request body into the pieces a conversation repeats turn after turn. A chat, Messages or
 * Responses request sends the whole history again each turn (messages / input) beside the same
 * tools and system prompt, so a body cut at its JSON structure shares nearly all its pieces with
 * the previous turn's; the log stores each distinct piece once (content addressed) and a body as
 * the list of its pieces.
 *
 * The pieces are a partition of the text: joined they give back the exact string, whitespace,
 * key order and all, whatever the text is (invalid or cut-off JSON included). Cuts are made only
 * outside strings, so the text of any one JSON string lies whole inside one piece: search, which
 * matches within a piece, finds every string value's text.
 *
 * Where: the top-level object is always cut into its members, and any object or array inside it
 * of at least MIN_SPLIT_CHARS into its members or elements, recursively. A container is cut before
 * each comma and before its closing bracket (after its last non-blank), so an element is the same
 * piece whether or not more follow it: appending a turn adds only the new elements' pieces, and an
 * edited message (a moved cache_control marker, a rewritten earlier turn) adds only the pieces of
 * the members that changed. The first member or element stays with the text before it (the
 * opening bracket and the parent's key): a piece less per container, and as stable.
 */

/**
 * Smaller containers stay one piece: each piece costs a row, its hash and an entry in every list
 * that holds it (about 60 bytes), more than splitting a small message saves.
 */
export const MIN_SPLIT_CHARS = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
/** Outside strings only these characters matter; a regex finds the next one natively. */
const STRUCTURAL = /["{}[\],]/g;

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Index of the quote that ends the string whose opening quote is at `open`, or -1 if it never ends. */
function stringEnd(text: string, open: number): number {
  let candidate = open + 1;
  for (;;) {
    const quote = text.indexOf('"', candidate);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    candidate = quote + 1;
  }
}

interface OpenContainer {
  start: number;
  /** Cuts between this container's members or elements, kept only if it is large enough. */
  cuts: number[];
}

/** Offsets strictly inside `text`, ascending, where the pieces start (0 excluded). */
export function chunkCuts(text: string): number[] {
  let first = 0;
  while (first < text.length && isBlank(text.charCodeAt(first))) first += 1;
  if (text.charCodeAt(first) !== OPEN_BRACE) return [];
  const kept: number[] = [];
  const stack: OpenContainer[] = [];
  const pattern = new RegExp(STRUCTURAL.source, 'g');
  pattern.lastIndex = first;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const at = match.index;
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      if (end < 0) break;
      pattern.lastIndex = end + 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      stack.push({ start: at, cuts: [] });
    } else if (code === COMMA) {
      stack.at(-1)?.cuts.push(at);
    } else {
      const closed = stack.pop();
      if (closed === undefined) break;
      let beforeClose = at;
      while (isBlank(text.charCodeAt(beforeClose - 1))) beforeClose -= 1;
      closed.cuts.push(beforeClose);
      const parent = stack.at(-1);
      const split = parent === undefined || at + 1 - closed.start >= MIN_SPLIT_CHARS;
      // A loop, not push(...cuts): an array of a hundred thousand elements would overflow the stack.
      if (split) for (const cut of closed.cuts) (parent?.cuts ?? kept).push(cut);
      if (parent === undefined) break;
    }
  }
  // A cut-off body leaves containers open: their cuts so far still partition the text.
  for (const open of stack) for (const cut of open.cuts) kept.push(cut);
  return [...new Set(kept)].filter((cut) => cut > 0 && cut < text.length).sort((a, b) => a - b);
}

/** The pieces of `text`, in order; `pieces.join('') === text`. */
export function requestChunks(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const cut of chunkCuts(text)) {
    pieces.push(text.slice(start, cut));
    start = cut;
  }
  pieces.push(text.slice(start));
  return pieces;
}
