/**
 * Memory of a Chromium process tree, by process kind (Linux /proc). Chromium's processes share
 * most of their code pages and, through the zygote, much of their start-up memory, so their RSS
 * figures overlap; PSS (each shared page divided among the processes mapping it) adds up to what
 * the tree holds, and is the figure summed here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from '../support/procStat.ts';
import { kiBFieldBytes } from './processMemory.ts';

/** What a process of the tree is: Chromium marks every child with `--type=<kind>` (utility processes also with their service). */
export function chromiumProcessKind(argv: readonly string[]): string {
  // Chromium's crash handler is a program of its own, started without a --type.
  if (/crashpad/.test(argv[0] ?? '')) return 'crashpad-handler';
  const type = argv.find((arg) => arg.startsWith('--type='))?.slice('--type='.length);
  if (type === undefined) return 'browser';
  const service = argv.find((arg) => arg.startsWith('--utility-sub-type='))?.slice('--utility-sub-type='.length);
  return type === 'utility' && service !== undefined ? `utility (${service})` : type;
}

/**
 * A process's arguments from /proc/<pid>/cmdline. Chromium rewrites its own (to name each child's
 * kind), leaving one string with the arguments separated by spaces instead of NULs.
 */
export function processArgv(cmdline: string): string[] {
  const argv = cmdline.split('\0').filter(Boolean);
  return argv.length === 1 && argv[0]?.includes(' ') ? argv[0].split(' ').filter(Boolean) : argv;
}

/** Every process below `rootPid` (children, their children, ...), from each process's parent in /proc/<pid>/stat. */
export function descendantPids(rootPid: number, procRoot = '/proc'): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync(procRoot)) {
    if (!/^\d+$/.test(entry)) continue;
    const parentPid = readParentPid(`${procRoot}/${entry}/stat`);
    if (parentPid === null) continue;
    childrenOf.set(parentPid, [...(childrenOf.get(parentPid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const waiting = [rootPid];
  for (let pid = waiting.pop(); pid !== undefined; pid = waiting.pop()) {
    for (const child of childrenOf.get(pid) ?? []) {
      found.push(child);
      waiting.push(child);
    }
  }
  return found.sort((a, b) => a - b);
}

function readParentPid(statFile: string): number | null {
  try {
    return Number(procStatFields(statFile)[1]);
  } catch {
    return null; // ended between the listing and the read
  }
}

export interface SharedMemory {
  pssBytes: number;
  rssBytes: number;
}

/** A process's PSS and RSS from /proc/<pid>/smaps_rollup, or null once it has ended. */
export function readSharedMemory(pid: number, procRoot = '/proc'): SharedMemory | null {
  const file = `${procRoot}/${pid}/smaps_rollup`;
  let rollup: string;
  try {
    rollup = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  return { pssBytes: kiBFieldBytes(rollup, 'Pss', file), rssBytes: kiBFieldBytes(rollup, 'Rss', file) };
}

export interface ChromiumProcess {
  pid: number;
  kind: string;
}

/** The Chromium processes below `rootPid` with their kind, skipping any that is not Chromium's (no memory read: cheap to poll). */
export function chromiumProcesses(
  rootPid: number,
  isChromium: (argv: readonly string[]) => boolean,
  procRoot = '/proc',
): ChromiumProcess[] {
  const found: ChromiumProcess[] = [];
  for (const pid of descendantPids(rootPid, procRoot)) {
    let argv: string[];
    try {
      argv = processArgv(readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8'));
    } catch {
      continue; // ended between the listing and the read
    }
    if (isChromium(argv)) found.push({ pid, kind: chromiumProcessKind(argv) });
  }
  return found;
}

export interface ProcessKindMemory extends SharedMemory {
  kind: string;
  /** Each process of the kind, largest PSS first (several renderers may serve one window). */
  each: (SharedMemory & { pid: number })[];
}

/** The Chromium processes below `rootPid`, summed by kind (sorted by kind). */
export function chromiumMemoryByKind(
  rootPid: number,
  isChromium: (argv: readonly string[]) => boolean,
  procRoot = '/proc',
): ProcessKindMemory[] {
  const byKind = new Map<string, ProcessKindMemory>();
  for (const { pid, kind } of chromiumProcesses(rootPid, isChromium, procRoot)) {
    const memory = readSharedMemory(pid, procRoot);
    if (memory === null) continue;
    const sum = byKind.get(kind) ?? { kind, pssBytes: 0, rssBytes: 0, each: [] };
    byKind.set(kind, {
      kind,
      pssBytes: sum.pssBytes + memory.pssBytes,
      rssBytes: sum.rssBytes + memory.rssBytes,
      each: [...sum.each, { pid, ...memory }].sort((a, b) => b.pssBytes - a.pssBytes),
    });
  }
  return [...byKind.values()].sort((a, b) => a.kind.localeCompare(b.kind));
}
