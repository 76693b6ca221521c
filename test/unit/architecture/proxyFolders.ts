import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importSpecifiers, importTarget, listSourceFiles } from './importScanner.ts';

/**
 * The rules between proxy/'s folders (DESIGN.md, Layout): the folders tell a request's story, and
 * each may lean only on the ones below it. A folder edge is "a file in `from` imports a file in `to`".
 */
export interface FolderEdge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

interface FolderRule {
  rule: string;
  from: string;
  forbids(to: string): boolean;
}

const onlyFrom = (folder: string, allowed: readonly string[]): FolderRule => ({
  rule: `proxy/${folder}/ imports only ${allowed.map((name) => `${name}/`).join(', ')}`,
  from: folder,
  forbids: (to) => !allowed.includes(to),
});

const never = (folder: string, forbidden: readonly string[]): FolderRule => ({
  rule: `proxy/${folder}/ never imports ${forbidden.map((name) => `${name}/`).join(' or ')}`,
  from: folder,
  forbids: (to) => forbidden.includes(to),
});

export const FOLDER_RULES: readonly FolderRule[] = [
  onlyFrom('contracts', ['contracts']),
  onlyFrom('core', ['contracts', 'core']),
  onlyFrom('protocols', ['contracts', 'core', 'protocols']),
  never('forward', ['http', 'app', 'store']),
  never('spend', ['forward', 'http', 'app']),
  never('store', ['forward', 'http', 'app']),
  never('http', ['app']),
];

/** The proxy/ folder a repo-relative path lies in, or null outside proxy/ (a file at proxy/'s top is its own folder). */
export function proxyFolderOf(path: string): string | null {
  const parts = path.split('/');
  if (parts[0] !== 'proxy' || parts.length < 3) return null;
  return parts[1] ?? null;
}

export function folderEdgesIn(file: string, specifiers: readonly string[]): FolderEdge[] {
  const from = proxyFolderOf(file);
  if (from === null) return [];
  const edges: FolderEdge[] = [];
  for (const specifier of specifiers) {
    const target = importTarget(specifier, file);
    const to = target.kind === 'file' ? proxyFolderOf(target.path) : null;
    if (to !== null && to !== from) edges.push({ from, to, file, specifier });
  }
  return edges;
}

export function ruleViolations(edges: readonly FolderEdge[]): string[] {
  return edges.flatMap((edge) =>
    FOLDER_RULES.filter((rule) => rule.from === edge.from && rule.forbids(edge.to)).map(
      (rule) => `${rule.rule}: ${edge.file} imports ${edge.specifier}`,
    ),
  );
}

/** Every cycle among folders, each as the folders in order with the first repeated at the end; [] when acyclic. */
export function folderCycles(edges: readonly FolderEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    const targets = next.get(edge.from) ?? new Set<string>();
    targets.add(edge.to);
    next.set(edge.from, targets);
  }
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const visit = (folder: string, path: string[]): void => {
    for (const to of next.get(folder) ?? []) {
      const at = path.indexOf(to);
      if (at >= 0) {
        const cycle = [...path.slice(at), to];
        // Each cycle once, whichever folder the walk entered it by.
        const key = [...cycle.slice(0, -1)].sort().join('>');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else {
        visit(to, [...path, to]);
      }
    }
  };
  for (const folder of [...next.keys()].sort()) visit(folder, [folder]);
  return cycles;
}

export function scanProxyFolders(root: string): FolderEdge[] {
  return listSourceFiles(root, ['proxy']).flatMap((file) =>
    folderEdgesIn(file, importSpecifiers(readFileSync(join(root, file), 'utf8'), file)),
  );
}
