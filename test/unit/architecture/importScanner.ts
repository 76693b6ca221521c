import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, posix, relative, sep } from 'node:path';
import { parseAst } from 'vite';

/**
 * Finds every module a source file refers to (static and dynamic imports, re-exports, require,
 * `import('x').T` types) from its syntax tree, so strings and comments that merely mention a
 * module do not count, and checks them against the layer rules of DESIGN.md.
 */
const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'dist-electron']);

type AstNode = { type?: unknown; [key: string]: unknown };

function literalValue(node: unknown): string | null {
  const candidate = node as AstNode | null;
  return candidate && candidate.type === 'Literal' && typeof candidate.value === 'string' ? candidate.value : null;
}

function specifierOf(node: AstNode): string | null {
  switch (node.type) {
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
    case 'ImportExpression':
      return literalValue(node.source);
    case 'TSImportType':
      return literalValue(node.source) ?? literalValue((node.argument as AstNode | undefined)?.literal);
    case 'CallExpression': {
      const callee = node.callee as AstNode | undefined;
      const args = node.arguments as unknown[] | undefined;
      return callee?.type === 'Identifier' && callee.name === 'require' ? literalValue(args?.[0]) : null;
    }
    default:
      return null;
  }
}

function collect(node: unknown, found: string[]): void {
  if (Array.isArray(node)) {
    for (const child of node) collect(child, found);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const specifier = specifierOf(node as AstNode);
  if (specifier !== null) found.push(specifier);
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'parent' && typeof value === 'object') collect(value, found);
  }
}

export function importSpecifiers(sourceText: string, fileName: string): string[] {
  const extension = extname(fileName);
  const lang = extension === '.tsx' ? 'tsx' : extension === '.jsx' ? 'jsx' : extension.includes('ts') ? 'ts' : 'js';
  const found: string[] = [];
  collect(parseAst(sourceText, { lang }, fileName), found);
  return found;
}

export type ImportTarget = { kind: 'package'; name: string } | { kind: 'file'; path: string };

/** A specifier as a package name or a repo-relative path (posix separators). */
export function importTarget(specifier: string, importerPath: string): ImportTarget {
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    return { kind: 'file', path: posix.normalize(posix.join(posix.dirname(importerPath), specifier)) };
  }
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
  return { kind: 'package', name };
}

export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

interface LayerRule {
  layer: string;
  /** Only files under this directory, when given. */
  within?: string;
  rule: string;
  forbids(target: ImportTarget): boolean;
}

const isUnder = (target: ImportTarget, directory: string) =>
  target.kind === 'file' && (target.path === directory || target.path.startsWith(`${directory}/`));
const isElectronPackage = (target: ImportTarget) => target.kind === 'package' && target.name === 'electron';

export const LAYER_RULES: readonly LayerRule[] = [
  { layer: 'proxy', rule: 'proxy/ never imports electron', forbids: isElectronPackage },
  {
    layer: 'proxy',
    rule: 'proxy/ never imports electron/ or renderer/',
    forbids: (target) => isUnder(target, 'electron') || isUnder(target, 'renderer'),
  },
  { layer: 'renderer', rule: 'renderer/ never imports electron', forbids: isElectronPackage },
  { layer: 'renderer', rule: 'renderer/ never imports electron/', forbids: (target) => isUnder(target, 'electron') },
  {
    layer: 'renderer',
    rule: 'renderer/ imports from proxy/ only proxy/contracts/',
    forbids: (target) => isUnder(target, 'proxy') && !isUnder(target, 'proxy/contracts'),
  },
  { layer: 'electron', rule: 'electron/ never imports renderer/', forbids: (target) => isUnder(target, 'renderer') },
  {
    layer: 'proxy',
    within: 'proxy/protocols',
    rule: 'proxy/protocols/ imports from proxy/ only contracts/, core/ and itself',
    forbids: (target) =>
      isUnder(target, 'proxy') && !['proxy/contracts', 'proxy/core', 'proxy/protocols'].some((directory) => isUnder(target, directory)),
  },
];

export function violationsIn(filePath: string, specifiers: readonly string[]): Violation[] {
  const layer = filePath.split('/')[0];
  const violations: Violation[] = [];
  for (const specifier of specifiers) {
    const target = importTarget(specifier, filePath);
    for (const rule of LAYER_RULES) {
      const applies = rule.layer === layer && (rule.within === undefined || filePath.startsWith(`${rule.within}/`));
      if (applies && rule.forbids(target)) violations.push({ file: filePath, specifier, rule: rule.rule });
    }
  }
  return violations;
}

/** Repo-relative paths (posix) of the source files under the given top-level directories. */
export function listSourceFiles(root: string, directories: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (absolute: string) => {
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      const child = join(absolute, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(child);
      } else if (SOURCE_EXTENSIONS.has(extname(entry.name)) && !entry.name.endsWith('.d.ts')) {
        files.push(relative(root, child).split(sep).join('/'));
      }
    }
  };
  for (const directory of directories) {
    try {
      walk(join(root, directory));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return files;
}

export function scanBoundaries(root: string, directories: readonly string[]): Violation[] {
  return listSourceFiles(root, directories).flatMap((file) =>
    violationsIn(file, importSpecifiers(readFileSync(join(root, file), 'utf8'), file)),
  );
}
