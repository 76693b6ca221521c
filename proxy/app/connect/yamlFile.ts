import { type Document, isMap, parseDocument } from 'yaml';
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
