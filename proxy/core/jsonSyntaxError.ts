import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/** The 1-based line and column of a character offset, as an editor shows them. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/**
 * Where a JSON text stops parsing and why, in words ("close brace expected at line 3, column 1"):
 * never the text there, which in a settings file may hold a key.
 */
export function jsonSyntaxErrorAt(text: string, error: ParseError): string {
  const cause = printParseErrorCode(error.error)
    .replace(/(?<=[a-z])(?=[A-Z])/g, ' ')
    .toLowerCase();
  const { line, column } = lineAndColumn(text, error.offset);
  return `${cause} at line ${line}, column ${column}`;
}

/**
 * Why a text JSON.parse refused (with `error`) is no JSON, in words, at its line and column. Not V8's
 * message: it quotes ten characters either side of an unexpected token (`..."api_key": sk-proj-ab"...`),
 * and of a key pasted there that is a part no mask of the whole key finds. Read again only once
 * JSON.parse failed: valid JSON costs nothing more.
 */
export function jsonParseFailure(text: string, error: unknown): string {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first) return jsonSyntaxErrorAt(text, first);
  // What jsonc-parser lets pass and JSON.parse does not: V8's words, its quote left out.
  return (error instanceof Error ? error.message : String(error)).replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
}
