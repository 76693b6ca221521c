import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { withBaselineTree } from './baselineTree.ts';

/** Node 24 from the devDependency: the system node is older. */
const NODE_BIN = resolve(import.meta.dirname, '../../node_modules/.bin/node');
const SESSION_SCRIPT = resolve(import.meta.dirname, 'sessionLog.ts');
const SESSION_TURNS = 100;
const MB = 1024 * 1024;

/** What sessionLog.ts prints for one tree. */
export interface SessionLogResult {
  tree: string;
  turns: number;
  rows: number;
  sentBytes: number;
  lastBodyBytes: number;
  dbBytes: number;
  walBytes: number;
  usedBytes: number;
  logThreadCpuMs: number;
  logThreadCpuMsPerRow: number;
  sendMs: number;
}

/** Runs sessionLog.ts in its own process against the checkout at `tree` (its proxy and log code). */
async function measureTree(tree: string): Promise<SessionLogResult> {
  const { stdout } = await promisify(execFile)(NODE_BIN, [SESSION_SCRIPT, '--tree', tree, '--turns', String(SESSION_TURNS)], {
    maxBuffer: 16 * MB,
  });
  const lastLine = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(lastLine) as SessionLogResult;
}

/**
 * Issue 22's figure: the request log of one 100-turn agent session, this tree's and, with a
 * baseline ref, that commit's (checked out by withBaselineTree), one after the other.
 */
export async function measureSessionLog(
  baselineRef: string | undefined,
  log: (line: string) => void,
): Promise<{ current: SessionLogResult; baseline: SessionLogResult | null }> {
  log(`a ${SESSION_TURNS}-turn session through this tree's proxy`);
  const current = await measureTree(resolve(import.meta.dirname, '../..'));
  if (baselineRef === undefined) return { current, baseline: null };
  log(`the same session through ${baselineRef}'s proxy`);
  const baseline = await withBaselineTree(baselineRef, (tree) => measureTree(tree.dir));
  return { current, baseline };
}

export function formatSessionLog(results: { current: SessionLogResult; baseline: SessionLogResult | null }): string {
  const sides = [['this tree', results.current] as const, ...(results.baseline ? [['baseline', results.baseline] as const] : [])];
  const { current } = results;
  const lines = [
    `Request log of one ${current.turns}-turn session (${(current.sentBytes / MB).toFixed(1)} MB of request bodies sent, the last ${(current.lastBodyBytes / 1024).toFixed(0)} KB)`,
    '| tree | rows | log file (db + wal, checkpointed) | log thread CPU | per row |',
    '|---|---|---|---|---|',
    ...sides.map(
      ([name, side]) =>
        `| ${name} | ${side.rows} | ${((side.dbBytes + side.walBytes) / MB).toFixed(2)} MB | ${side.logThreadCpuMs.toFixed(0)} ms | ${side.logThreadCpuMsPerRow.toFixed(1)} ms |`,
    ),
  ];
  return lines.join('\n');
}
