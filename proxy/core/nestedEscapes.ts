import type { KeyMasker } from './keyMasker.ts';

/** Two backslashes: a JSON text writes its strings' own escapes (`\u002d` inside a string) so. */
const ESCAPED_BACKSLASH = '\\\\';
/**
 * Deeper than any answer a model writes (tool arguments sit at 5-6). An answer that nests deeper is
 * left as it is: written anew, it would overflow JSON.stringify's stack (at about 10 000 levels).
 */
const MAX_WALK_DEPTH = 256;

type Container = Record<string, unknown>;

/**
 * Masks, in place, the key in a parsed answer's strings that spell it with escapes of their own: a
 * string that is JSON itself (a tool call's `arguments`) writes its escapes once more, so the answer's
 * text holds `\\u002d` where its reader, parsing the string in turn, reads `-`. Each escape is read once
 * when the text is masked (escapedSecrets.ts), so such a key went through whole. Only an answer whose
 * text holds an escaped backslash can hold one; true if a string changed (the answer is then written anew).
 */
export function maskNestedEscapes(text: string, answer: object, masker: KeyMasker): boolean {
  if (!text.includes(ESCAPED_BACKSLASH)) return false;
  const found: Array<{ holder: Container; key: string; masked: string }> = [];
  // A stack, not recursion, and nothing changed until the whole answer is read: one past the depth is left whole.
  const pending: Array<{ container: Container; depth: number }> = [{ container: answer as Container, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > MAX_WALK_DEPTH) return false;
    for (const key of Object.keys(next.container)) {
      const value = next.container[key];
      if (typeof value === 'string') {
        if (value.includes('\\') && masker.holdsEscapedForm(value))
          found.push({ holder: next.container, key, masked: masker.maskText(value) });
      } else if (typeof value === 'object' && value !== null) {
        pending.push({ container: value as Container, depth: next.depth + 1 });
      }
    }
  }
  for (const { holder, key, masked } of found) holder[key] = masked;
  return found.length > 0;
}
