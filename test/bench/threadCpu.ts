/**
 * CPU per thread of a process, grouped by thread name (/proc/<pid>/task/<tid>/comm): which of a
 * proxy's threads (the forwarding loop, the log thread, V8's GC workers, libuv's pool) pays for a
 * difference the process total shows. A live thread's time is read in nanoseconds (schedstat's
 * first field, the scheduler's own sum): the 10 ms ticks of /proc/.../stat are 17 us a request over
 * a 600-request run, as large as the differences looked for. Threads that ended are charged to
 * EXITED_THREADS, in ticks: the process total still counts them, the task list no longer does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from '../support/procStat.ts';
import { processCpuMs } from './processCpu.ts';

const TICKS_PER_SECOND = 100;
export const EXITED_THREADS = '(ended threads)';

export type ThreadCpuMs = Record<string, number>;

const NS_PER_MS = 1_000_000;

/** Reads each live thread's CPU time, summed by name, plus what ended threads used (`procRoot`: /proc, or a copy for tests). */
export function threadCpuMs(pid: number, procRoot = '/proc'): ThreadCpuMs {
  const byName: ThreadCpuMs = {};
  let liveTicksMs = 0;
  for (const threadId of readdirSync(`${procRoot}/${pid}/task`)) {
    try {
      const task = `${procRoot}/${pid}/task/${threadId}`;
      const name = readFileSync(`${task}/comm`, 'utf8').trim();
      const fields = procStatFields(`${task}/stat`);
      const runNs = Number(readFileSync(`${task}/schedstat`, 'utf8').split(' ')[0]);
      byName[name] = (byName[name] ?? 0) + runNs / NS_PER_MS;
      liveTicksMs += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    } catch {
      // The thread ended between the listing and the read: its time moves to the process total.
    }
  }
  // Both in ticks, so what ended threads used is not mixed with the live threads' rounding.
  byName[EXITED_THREADS] = Math.max(0, processCpuMs(pid, procRoot) - liveTicksMs);
  return byName;
}

/** What each thread name used between two readings (a name absent before started from zero). */
export function threadCpuDelta(before: ThreadCpuMs, after: ThreadCpuMs): ThreadCpuMs {
  const delta: ThreadCpuMs = {};
  for (const [name, ms] of Object.entries(after)) delta[name] = ms - (before[name] ?? 0);
  return delta;
}

/** Sums per-run deltas by thread name and divides by the requests: microseconds per request. */
export function threadUsPerRequest(runs: readonly { threadCpuMs: ThreadCpuMs; requests: number }[]): ThreadCpuMs {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const totals: ThreadCpuMs = {};
  for (const run of runs) for (const [name, ms] of Object.entries(run.threadCpuMs)) totals[name] = (totals[name] ?? 0) + ms;
  const perRequest: ThreadCpuMs = {};
  for (const [name, ms] of Object.entries(totals)) perRequest[name] = requests === 0 ? Number.NaN : (ms * 1000) / requests;
  return perRequest;
}
