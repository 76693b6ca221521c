import { printParseErrorCode, type ParseError } from 'jsonc-parser';

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
