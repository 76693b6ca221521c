/**
 * The c=1 tail on a machine where background work has cores of its own. On two shared cores a
 * request is slow when the load generator or the upstream, woken by the proxy, waits behind one of
 * the proxy's background threads (the log thread, V8's helpers) while the other core idles (perf
 * sched timelines, DESIGN.md "Added p99 at c=1"). Here every process's main thread runs on the
 * first allowed CPU and every other thread on the rest, for the floor and Airlock alike; the table
 * prints the result beside the figure as measured, which alone is judged. The threads are split
 * again before each run; one started during a run (a checkpoint thread started again, say) runs
 * that run where its parent does. Linux only (taskset).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { platform } from 'node:os';

/** The CPUs a process may run on, as `taskset -c` writes them, from its /proc status. */
export function allowedCpuList(statusText: string): string | null {
  return /^Cpus_allowed_list:\s*(\S+)\s*$/m.exec(statusText)?.[1] ?? null;
}

/** The CPU for main threads and the list for all others, from a `taskset -c` list ("0-3", "2,5-6"); null with fewer than two CPUs. */
export function splitCpus(list: string): { mainCpu: number; backgroundCpus: string } | null {
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (range === null) return null;
    const from = Number(range[1]);
    for (let cpu = from; cpu <= Number(range[2] ?? from); cpu += 1) cpus.push(cpu);
  }
  const [mainCpu, ...others] = cpus;
  return mainCpu === undefined || others.length === 0 ? null : { mainCpu, backgroundCpus: others.join(',') };
}

/** The two `taskset` calls that put a process's threads apart: all of them on the background CPUs, then its main thread on the main one. */
export function splitCoresCommands(pid: number, cpus: { mainCpu: number; backgroundCpus: string }): string[][] {
  return [
    ['-a', '-p', '-c', cpus.backgroundCpus, String(pid)],
    ['-p', '-c', String(cpus.mainCpu), String(pid)],
  ];
}

/** What the split needs from the system: run `taskset` (throws on failure), and read a process's /proc status. */
export interface SplitSystem {
  taskset(args: readonly string[]): void;
  status(pid: number): string;
}

const LINUX: SplitSystem = {
  taskset: (args) => execFileSync('taskset', args, { stdio: 'ignore' }),
  status: (pid) => readFileSync(`/proc/${pid}/status`, 'utf8'),
};

function tasksetFound(system: SplitSystem): boolean {
  try {
    system.taskset(['--version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `measure` (the c=1 runs, in the bench) with every process's threads split each time it asks
 * for the servers to settle; afterwards every process gets back the CPUs it had, each on its own
 * (one that ended cannot stop the others'). The reason instead, where the split cannot be made or
 * failed; an error of `measure` itself is thrown as it was.
 */
export async function measureOnSplitCores<R>(
  measure: (settleAndSplit: () => Promise<void>) => Promise<R>,
  pids: readonly number[],
  settle: () => Promise<unknown>,
  system: SplitSystem = LINUX,
): Promise<R | string> {
  if (system === LINUX && platform() !== 'linux') return 'needs Linux';
  if (!tasksetFound(system)) return 'needs taskset (util-linux)';
  const original = pids.map((pid) => [pid, allowedCpuList(system.status(pid))] as const);
  const cpus = splitCpus(original[0]?.[1] ?? '');
  if (cpus === null) return 'needs two cores';
  let splitFailure: string | null = null;
  const settleAndSplit = async (): Promise<void> => {
    await settle();
    try {
      for (const pid of pids) for (const args of splitCoresCommands(pid, cpus)) system.taskset(args);
    } catch (error) {
      splitFailure ??= `could not split: ${(error as Error).message}`;
    }
  };
  try {
    const results = await measure(settleAndSplit);
    return splitFailure ?? results;
  } finally {
    for (const [pid, list] of original) {
      try {
        if (list !== null) system.taskset(['-a', '-p', '-c', list, String(pid)]);
      } catch {
        // A process that ended has no CPUs to give back; the others still get theirs.
      }
    }
  }
}
