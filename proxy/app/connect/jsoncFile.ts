import { applyEdits, modify, parse, type JSONPath, type ParseError } from 'jsonc-parser';
import { jsonSyntaxErrorAt } from '../../core/jsonSyntaxError.ts';
import { isRecord } from '../../core/isRecord.ts';
// A byte order mark a Windows editor saved: Claude Code strips it before parsing settings.json, while
// jsonc-parser calls it an invalid symbol. It is set aside for the parse and kept in the file.
import { byteOrderMarkOf, withoutByteOrderMark } from '../../core/byteOrderMark.ts';
import type { SettingsFormat } from './settingsUndo.ts';
import { ConnectFileError } from './toolAdapter.ts';

/**
 * JSON and JSONC files edited in place with jsonc-parser: each change is an edit of the text at
 * one path, so comments, key order, unrelated keys and the file's indentation stay as they were.
 */
export function parseJsonc(text: string | null, path: string): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const parsedText = withoutByteOrderMark(text);
  const value: unknown = parse(parsedText, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    throw new ConnectFileError(
      `${path} is not valid JSON (${jsonSyntaxErrorAt(parsedText, first)}): fix or move the file, then connect again`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConnectFileError(`${path} does not hold a JSON object: fix or move the file, then connect again`);
  }
  return value as Record<string, unknown>;
}

/** A JSON or JSONC file read and edited as settings, for undo. */
export function jsoncSettings(fileName: string): SettingsFormat {
  return {
    parse: (text) => parseJsonc(text, fileName),
    edit: (text, path, value) => editJsonc(text, [{ path: [...path], value }], fileName),
  };
}

/** A value to set (or undefined to remove) at a path. */
export interface JsonEdit {
  path: JSONPath;
  value: unknown;
}

/** The text with each edit applied; refuses (ConnectFileError) a text that does not parse. */
export function editJsonc(text: string | null, edits: readonly JsonEdit[], fileName: string): string {
  const root = parseJsonc(text, fileName);
  for (const edit of edits) if (edit.value !== undefined) refuseBlockedPath(root, edit.path, fileName);
  const bom = text === null ? '' : byteOrderMarkOf(text);
  let result = text === null || text.trim() === '' ? '{}\n' : withoutByteOrderMark(text);
  const formattingOptions = { ...detectIndent(result), eol: result.includes('\r\n') ? '\r\n' : '\n' };
  for (const edit of edits) {
    result = applyEdits(result, modify(result, edit.path, edit.value, { formattingOptions }));
  }
  return bom + result;
}

/**
 * jsonc-parser cannot set a field inside a string, array or null (`"env": null`) and throws
 * words about its own internals; the user is told which field of which file to fix instead.
 */
function refuseBlockedPath(root: Record<string, unknown>, path: JSONPath, fileName: string): void {
  let node: unknown = root;
  for (let depth = 0; depth < path.length - 1; depth += 1) {
    node = (node as Record<string, unknown>)[path[depth] as string];
    if (node === undefined) return;
    if (!isRecord(node)) {
      const kind = node === null ? 'null' : Array.isArray(node) ? 'an array' : `a ${typeof node}`;
      throw new ConnectFileError(
        `${fileName}: "${path.slice(0, depth + 1).join('.')}" holds ${kind}, where Airlock adds "${String(path[depth + 1])}" to an object: fix or move the file, then connect again`,
      );
    }
  }
}

/** The file's own indentation (first indented line), two spaces when it has none. */
function detectIndent(text: string): { insertSpaces: boolean; tabSize: number } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: indent ? indent.length : 2 };
}
