/**
 * The c=1 tail on a machine where background work has a core of its own. On two shared cores a
 * request is slow when the load generator or the upstream, woken by the proxy, waits behind one of
 * the proxy's background threads (the log thread, V8's helpers) while the other core idles (perf
 * sched timelines, DESIGN.md "Added p99 at c=1"). Here every process's main thread runs on the
 * first core and every other thread on the second, for the floor and Airlock alike; the table
 * prints the result beside the figure as measured, which alone is judged. Linux only (taskset).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { platform } from 'node:os';
import { C1_RUNS } from './benchSettings.ts';
import { measureThroughput, type ThroughputResult } from './scenarios.ts';

/** The CPUs a process may run on, as `taskset -c` writes them, from its /proc status. */
export function allowedCpuList(statusText: string): string | null {
  return /^Cpus_allowed_list:\s*(\S+)\s*$/m.exec(statusText)?.[1] ?? null;
}

/** The first two CPUs of a `taskset -c` list ("0-3", "2,5-6"), or null when it names fewer. */
export function firstTwoCpus(list: string): [number, number] | null {
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const [from, to = from] = part.split('-').map(Number);
    if (from === undefined || to === undefined || !Number.isInteger(from) || !Number.isInteger(to)) return null;
    for (let cpu = from; cpu <= to && cpus.length < 2; cpu += 1) cpus.push(cpu);
  }
  return cpus.length === 2 ? [cpus[0] as number, cpus[1] as number] : null;
}

/** The two `taskset` calls that put a process's threads apart: all of them on the background CPU, then its main thread on the main one. */
export function splitCoresCommands(pid: number, [mainCpu, backgroundCpu]: [number, number]): string[][] {
  return [
    ['-a', '-p', '-c', String(backgroundCpu), String(pid)],
    ['-p', '-c', String(mainCpu), String(pid)],
  ];
}

function tasksetFound(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface PinnedCores {
  /** Splits every process's threads again (threads started since are on their parent's core). */
  split(): void;
  /** Gives every process back the CPUs it had. */
  restore(): void;
}

/** For these processes, or the reason they cannot be split on this machine. */
export function pinnedCores(pids: readonly number[]): PinnedCores | string {
  if (platform() !== 'linux') return 'needs Linux';
  if (!tasksetFound()) return 'needs taskset (util-linux)';
  const original = new Map(pids.map((pid) => [pid, allowedCpuList(readFileSync(`/proc/${pid}/status`, 'utf8'))] as const));
  const cpus = firstTwoCpus(original.get(process.pid) ?? '');
  if (cpus === null) return 'needs two cores';
  return {
    split() {
      for (const pid of pids) for (const args of splitCoresCommands(pid, cpus)) execFileSync('taskset', args, { stdio: 'ignore' });
    },
    restore() {
      for (const [pid, cpus] of original)
        if (cpus !== null) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    },
  };
}

/** Non-streamed chat at c=1 through each target, as the c=1 runs do, with the threads split before every run. */
export async function measureOnSplitCores<T extends string>(
  urls: Record<T, string>,
  pids: readonly number[],
  settle: () => Promise<unknown>,
): Promise<Record<T, ThroughputResult> | string> {
  const cores = pinnedCores(pids);
  if (typeof cores === 'string') return cores;
  try {
    const splitWhenQuiet = async (): Promise<void> => {
      await settle();
      cores.split();
    };
    return await measureThroughput(urls, { ...C1_RUNS, settle: splitWhenQuiet });
  } finally {
    cores.restore();
  }
}
