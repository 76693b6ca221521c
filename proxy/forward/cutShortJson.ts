import { type ParseErrorCode, printParseErrorCode, visit } from 'jsonc-parser';

/** Tokens a text cut short can end inside: a literal's or a number's first characters. */
const LITERAL_STARTS = ['true', 'false', 'null', '-'];
// A JSON string's start: characters from U+0020 on but the quote and backslash, escapes JSON knows, the last one perhaps cut.
const STRING_START = /^"(?:[\x20\x21\x23-\x5B\x5D-\u{10FFFF}]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*(?:\\(?:u[0-9a-fA-F]{0,3})?)?$/u;

/**
 * Whether a body that did not parse is a JSON object or array cut short: what a relay sends when it
 * ends its own body in order after its copy of the provider's answer broke (wso2/api-manager#5231),
 * as against a body that is no JSON at all (a web page, a maintenance text) or JSON wrong inside.
 * Read by its structure (jsonc-parser in strict JSON mode), not by an engine's error wording, which
 * Electron's V8 may word otherwise: a prefix of valid JSON has faults only at its very end (something
 * expected where the text stops, or a token the end cut: a string, a number, a literal's start).
 */
export function isCutShortJson(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  let faults = 0;
  let faultInside = false;
  visit(
    trimmed,
    {
      onError: (code, offset, length) => {
        faults += 1;
        if (!faultInside) faultInside = !isCutAtEnd(trimmed, code, offset, length);
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  return faults > 0 && !faultInside;
}

function isCutAtEnd(text: string, code: ParseErrorCode, offset: number, length: number): boolean {
  if (offset + length !== text.length) return false;
  if (length === 0) return true;
  const token = text.slice(offset);
  switch (printParseErrorCode(code)) {
    case 'UnexpectedEndOfString':
      return STRING_START.test(token);
    case 'UnexpectedEndOfNumber':
      return true;
    case 'InvalidSymbol':
      return LITERAL_STARTS.some((literal) => literal.startsWith(token));
    default:
      return false;
  }
}
