import { applyEdits, modify, parse, printParseErrorCode, type JSONPath, type ParseError } from 'jsonc-parser';
import { ConnectFileError } from './toolAdapter.ts';

/**
 * JSON and JSONC files edited in place with jsonc-parser: each change is an edit of the text at
 * one path, so comments, key order, unrelated keys and the file's indentation stay as they were.
 */
export function parseJsonc(text: string | null, path: string): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    throw new ConnectFileError(
      `${path} is not valid JSON (${printParseErrorCode(first.error)} at character ${first.offset}): fix or move the file, then connect again`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConnectFileError(`${path} does not hold a JSON object: fix or move the file, then connect again`);
  }
  return value as Record<string, unknown>;
}

/** A value to set (or undefined to remove) at a path. */
export interface JsonEdit {
  path: JSONPath;
  value: unknown;
}

/** The text with each edit applied; refuses (ConnectFileError) a text that does not parse. */
export function editJsonc(text: string | null, edits: readonly JsonEdit[], fileName: string): string {
  parseJsonc(text, fileName);
  let result = text === null || text.trim() === '' ? '{}\n' : text;
  const formattingOptions = { ...detectIndent(result), eol: result.includes('\r\n') ? '\r\n' : '\n' };
  for (const edit of edits) {
    result = applyEdits(result, modify(result, edit.path, edit.value, { formattingOptions }));
  }
  return result;
}

/** The file's own indentation (first indented line), two spaces when it has none. */
function detectIndent(text: string): { insertSpaces: boolean; tabSize: number } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: indent ? indent.length : 2 };
}
