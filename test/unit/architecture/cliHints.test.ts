import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAst } from 'vite';
import { describe, expect, it } from 'vitest';
import { CLI_COMMAND } from '../../../proxy/contracts/cli.ts';
import { createProgram } from '../../../proxy/app/cli/program.ts';
import { listSourceFiles } from './importScanner.ts';

/**
 * The rule for every hint that names a command of the CLI (the CLI's own output, the window, the
 * tray, error fixes): it is written `${CLI_COMMAND} <command>`, never as a literal `airlock <command>`
 * or `npx airlock <command>`. `npm install` puts no `airlock` on the PATH and the packaged app
 * installs no command (build/electron-builder.config.cjs); the package is private, so the one form
 * that runs is npx in the Airlock folder, on the project's Node 24, as the README says. One constant
 * keeps every hint on it.
 */
const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));
const LAYERS = ['proxy', 'renderer', 'electron'];
const COMMAND_NAMES = createProgram().commands.map((command) => command.name());
const LITERAL_HINT = new RegExp(`\\bairlock (${COMMAND_NAMES.join('|')})\\b`);
/** A line of SQL's own comments (the log's migrations) is for the code's readers, not a hint. */
const SQL_COMMENT_LINE = /^\s*--/;

function hasLiteralHint(text: string): boolean {
  return text.split('\n').some((line) => !SQL_COMMENT_LINE.test(line) && LITERAL_HINT.test(line));
}

type AstNode = { type?: unknown; start?: number; value?: unknown; [key: string]: unknown };

/** The text of every string, template part and JSX text in a source file, with where it starts. */
function textsOf(source: string, fileName: string): { text: string; start: number }[] {
  const extension = extname(fileName);
  const lang = extension === '.tsx' ? 'tsx' : extension === '.jsx' ? 'jsx' : extension.includes('ts') ? 'ts' : 'js';
  const texts: { text: string; start: number }[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const candidate = node as AstNode;
    const start = candidate.start ?? 0;
    if ((candidate.type === 'Literal' || candidate.type === 'JSXText') && typeof candidate.value === 'string')
      texts.push({ text: candidate.value, start });
    if (candidate.type === 'TemplateElement') texts.push({ text: String((candidate.value as { raw: string }).raw), start });
    for (const [key, value] of Object.entries(candidate)) if (key !== 'parent' && typeof value === 'object') visit(value);
  };
  visit(parseAst(source, { lang }, fileName));
  return texts;
}

function literalHintsIn(file: string): string[] {
  const source = readFileSync(join(projectRoot, file), 'utf8');
  return textsOf(source, file)
    .filter(({ text }) => hasLiteralHint(text))
    .map(({ text, start }) => `${file}:${source.slice(0, start).split('\n').length}: ${text}`);
}

describe('hints that name a CLI command', () => {
  it('knows the commands and the one form that runs them', () => {
    expect(COMMAND_NAMES).toEqual(expect.arrayContaining(['serve', 'profile', 'key', 'token', 'export']));
    expect(CLI_COMMAND).toBe('npx airlock');
  });

  it('are all written with CLI_COMMAND, so none drifts to another form', () => {
    expect(listSourceFiles(projectRoot, LAYERS).flatMap(literalHintsIn)).toEqual([]);
  });

  it('finds a literal hint in a string, a template and JSX text, and not in a comment', () => {
    // Built, so this file holds no placeholder inside a plain string (a likely mistake anywhere else).
    const placeholder = (name: string) => `\${${name}}`;
    const source = [
      "const a = 'run airlock serve';",
      `const b = \`then npx airlock key set ${placeholder('id')}\`;`,
      'const c = <p>or airlock token create</p>;',
      '// airlock serve in a comment',
      `const d = \`${placeholder('CLI_COMMAND')} serve\`;`,
      "const e = 'airlock.json';",
      'const f = `\n  -- a migration says airlock serve\n  ALTER TABLE t ADD COLUMN c TEXT;`;',
    ].join('\n');
    const found = textsOf(source, 'x.tsx').filter(({ text }) => hasLiteralHint(text));
    expect(found.map(({ text }) => text.trim())).toEqual(['run airlock serve', 'then npx airlock key set', 'or airlock token create']);
  });

  it('the README shows the same form', () => {
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    const bare = readme.split('\n').filter((line) => new RegExp(`(?<!npx )${LITERAL_HINT.source}`).test(line));
    expect(bare).toEqual([]);
  });
});
