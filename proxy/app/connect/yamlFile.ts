import { isDeepStrictEqual } from 'node:util';
import { type Document, isMap, isScalar, isSeq, type Node, parseDocument, Scalar, stringify, type YAMLMap } from 'yaml';
import { isRecord } from '../../core/isRecord.ts';
import { byteOrderMarkOf, withoutByteOrderMark } from '../../core/byteOrderMark.ts';
import { ConnectFileError } from './toolAdapter.ts';

/**
 * A YAML config read with the `yaml` package's document model, which keeps comments for edits in
 * place. A file that does not parse, or holds no mapping at its top, is refused with its name, the
 * place and the fix. Not with the parser's message: that quotes the offending line, which in a
 * tool's config is often the one holding its API key, and the refusal reaches the window.
 */
export function yamlMappingDocument(text: string | null, fileName: string): Document.Parsed {
  const document = parseDocument(text ?? '');
  const problem = document.errors[0];
  if (problem) {
    const place = problem.linePos ? ` at line ${problem.linePos[0].line}, column ${problem.linePos[0].col}` : '';
    const cause = problem.code.toLowerCase().replaceAll('_', ' ');
    throw new ConnectFileError(`${fileName} is not valid YAML (${cause}${place}): fix or move the file, then connect again`);
  }
  if (document.contents !== null && !isMap(document.contents)) {
    throw new ConnectFileError(`${fileName} does not hold a YAML mapping of options: fix or move the file, then connect again`);
  }
  return document;
}

/** A place in a YAML document: mapping keys and sequence indexes. */
export type YamlPath = readonly (string | number)[];

/**
 * The text with the value at `path` set (undefined: removed). A scalar replaced by a scalar is
 * rewritten at the range the parser found it (withScalarReplaced), and a key new to a block mapping is added as a line
 * after the mapping's last (a list or mapping value in flow style), every other byte kept; anything else goes through the
 * document model, printed in the file's own indentation, sequence style and line ends (the printer
 * keeps comments but not, say, the spaces before one). The result is read back and must hold
 * exactly the intended values, else the edit is refused rather than written.
 */
export function setYamlValue(text: string, fileName: string, path: YamlPath, value: unknown): string {
  const document = yamlMappingDocument(withoutByteOrderMark(text), fileName);
  const node = document.getIn(path, true);
  if (isScalar(node) && node.range && isPlainValue(value) && isPlainValue(node.value)) {
    const body = withoutByteOrderMark(text);
    const edited = withScalarReplaced(body, node, stringify(value).trimEnd());
    document.setIn(path, value);
    return checked(byteOrderMarkOf(text) + edited, document, fileName);
  }
  const parent = document.getIn(path.slice(0, -1), true);
  if (node === undefined && value !== undefined && isMap(parent) && !parent.flow) {
    const added = withKeyAdded(text, parent, path.at(-1)!, value);
    document.setIn(path, document.createNode(value));
    if (added !== null && sameValues(added, document)) return added;
  }
  if (value === undefined) document.deleteIn(path);
  else document.setIn(path, document.createNode(value));
  return checked(printed(document, text), document, fileName);
}

/**
 * The text with `value` added at the end of the sequence at `path` (created when absent). A scalar
 * or a mapping of scalars added to a block list is written as lines after its last item, lined up
 * with it, every other byte kept; anything else goes through the document model as in setYamlValue.
 */
export function appendYamlItem(text: string, fileName: string, path: YamlPath, value: unknown): string {
  const body = withoutByteOrderMark(text);
  const document = yamlMappingDocument(body, fileName);
  const sequence = document.getIn(path, true);
  if (sequence === undefined || sequence === null) {
    document.setIn(path, document.createNode([value]));
    return checked(printed(document, text), document, fileName);
  }
  if (!isSeq(sequence))
    throw new ConnectFileError(
      `${fileName}: "${path.join('.')}" is not a list, where Airlock adds an item: fix or move the file, then connect again`,
    );
  const first = sequence.items[0] as { range?: [number, number, number] } | undefined;
  const last = sequence.items.at(-1) as { range?: [number, number, number] } | undefined;
  const fields = isRecord(value) ? Object.entries(value) : [];
  const linesOfScalars = isPlainValue(value) || (fields.length > 0 && fields.every(([, field]) => isPlainValue(field)));
  sequence.add(document.createNode(value));
  if (sequence.flow || !first?.range || !last?.range || !linesOfScalars) {
    return checked(printed(document, text), document, fileName);
  }
  // `  - name: x`: the dash's column, and the item's own column after it.
  const itemStart = first.range[0];
  const lineStart = body.lastIndexOf('\n', itemStart - 1) + 1;
  const dashColumn = body.slice(lineStart, itemStart).lastIndexOf('-');
  const itemColumn = itemStart - lineStart;
  // An item whose dash is on a line of its own (`-` then the mapping below) is left to the printer.
  if (dashColumn < 0) return checked(printed(document, text), document, fileName);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const dash = `${' '.repeat(dashColumn)}-${' '.repeat(itemColumn - dashColumn - 1)}`;
  const lines = isPlainValue(value)
    ? [`${dash}${stringify(value).trimEnd()}${eol}`]
    : fields.map(
        ([key, field], index) =>
          `${index === 0 ? dash : ' '.repeat(itemColumn)}${stringify(key).trimEnd()}: ${stringify(field).trimEnd()}${eol}`,
      );
  // After the last item's line (its range may end before the line does, or the file without a line end).
  let at = last.range[1];
  if (at > 0 && body[at - 1] !== '\n') {
    const lineEnd = body.indexOf('\n', at);
    at = lineEnd === -1 ? body.length : lineEnd + 1;
  }
  const before = body.slice(0, at);
  const edited = `${before}${before.endsWith('\n') ? '' : eol}${lines.join('')}${body.slice(at)}`;
  return checked(byteOrderMarkOf(text) + edited, document, fileName);
}

/**
 * The text with the scalar `node` (parsed from it) written over by `replacement`, a value on one
 * line. A block scalar (`|`, `>-`) is its header line and the lines under it, its range ending after
 * the last one's line end: that line end stays, else the next key would join the value's line, and a
 * comment on the header line stays after the new value.
 */
export function withScalarReplaced(text: string, node: Scalar, replacement: string): string {
  const [start, end] = node.range!;
  if (node.type !== Scalar.BLOCK_FOLDED && node.type !== Scalar.BLOCK_LITERAL) {
    return `${text.slice(0, start)}${replacement}${text.slice(end)}`;
  }
  const value = text.slice(start, end);
  const lineEnd = /\r?\n$/.exec(value)?.[0] ?? '';
  const header = /^[^\r\n]*/.exec(value)![0];
  const comment = /[ \t]+#.*$/.exec(header)?.[0] ?? '';
  return `${text.slice(0, start)}${replacement}${comment}${text.slice(end - lineEnd.length)}`;
}

/** The text with `key: value` as a line after the block mapping's last entry, lined up with its first key; null when their places are unknown. */
function withKeyAdded(text: string, map: YAMLMap, key: string | number, value: unknown): string | null {
  const body = withoutByteOrderMark(text);
  const firstKey = map.items[0]?.key as Node | undefined;
  const lastPair = map.items.at(-1);
  const lastNode = (lastPair?.value ?? lastPair?.key) as Node | null | undefined;
  if (!firstKey?.range || !lastNode?.range) return null;
  const keyStart = firstKey.range[0];
  const column = keyStart - (body.lastIndexOf('\n', keyStart - 1) + 1);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const shown = stringify(value, { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 }).trimEnd();
  const line = `${' '.repeat(column)}${stringify(key).trimEnd()}: ${shown}${eol}`;
  let at = lastNode.range[1];
  if (at > 0 && body[at - 1] !== '\n') {
    const lineEnd = body.indexOf('\n', at);
    at = lineEnd === -1 ? body.length : lineEnd + 1;
  }
  const before = body.slice(0, at);
  return `${byteOrderMarkOf(text)}${before}${before.endsWith('\n') ? '' : eol}${line}${body.slice(at)}`;
}

function isPlainValue(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The document printed like the original: its indentation, `- ` under or beside its key, CRLF, BOM; no line folding. */
function printed(document: Document.Parsed, original: string): string {
  const body = withoutByteOrderMark(original);
  const indent = /^( +)\S/m.exec(body)?.[1]?.length ?? 2;
  // `key:` followed by `- item` at the same indentation: the sequence is not indented under its key.
  const indentSeq = !/^( *)[^\s#-][^\n]*:[ \t]*\r?\n\1- /m.test(body);
  const out = document.toString({ indent, indentSeq, lineWidth: 0, flowCollectionPadding: false });
  return byteOrderMarkOf(original) + (body.includes('\r\n') ? out.replace(/\r?\n/g, '\r\n') : out);
}

/** Whether the text reads back as exactly the intended document. */
function sameValues(text: string, intended: Document.Parsed): boolean {
  const reread = parseDocument(withoutByteOrderMark(text));
  return reread.errors.length === 0 && isDeepStrictEqual(reread.toJS(), intended.toJS());
}

function checked(text: string, intended: Document.Parsed, fileName: string): string {
  if (!sameValues(text, intended)) {
    throw new ConnectFileError(`${fileName} could not be edited without changing other settings: make the change by hand`);
  }
  return text;
}
