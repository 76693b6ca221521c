import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const CHRT_TIMEOUT_MS = 5_000;

function threadIdsNamed(name: string): number[] {
  return readdirSync('/proc/self/task')
    .filter((threadId) => {
      try {
        return readFileSync(`/proc/self/task/${threadId}/comm`, 'utf8').trim() === name;
      } catch {
        // The thread ended while listed.
        return false;
      }
    })
    .map(Number);
}

/** Resolves true once util-linux's `chrt` moved the thread to SCHED_IDLE, false if it could not. */
function scheduleWhenIdle(threadId: number): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('chrt', ['--idle', '--pid', '0', String(threadId)], { timeout: CHRT_TIMEOUT_MS }, (error) => resolve(error === null));
  });
}

/**
 * Lowers every thread of this process named `name` (Node names a worker's OS thread after its
 * `name` option) so it runs on CPU time nothing else wants. First nice 19, then the SCHED_IDLE
 * policy, which the kernel preempts as soon as anything else wants the core. With both cores busy
 * forwarding (the bench at concurrency 50), logging on kept a median 4 points more throughput
 * idle-scheduled than at nice 19 (five paired runs: 2 to 18). Node has no call for a scheduling
 * policy, so `chrt` sets it; where it is missing the thread stays at nice 19. Linux only: elsewhere there is no per-thread priority to
 * set from Node. Resolves with how many threads were moved to SCHED_IDLE.
 */
export async function lowerThreadPriority(name: string): Promise<number> {
  if (process.platform !== 'linux') return 0;
  const threadIds = threadIdsNamed(name);
  for (const threadId of threadIds) {
    try {
      // On Linux, setpriority with a thread id sets that thread's nice value alone.
      setPriority(threadId, constants.priority.PRIORITY_LOW);
    } catch {
      // The thread ended since it was listed: nothing to lower.
    }
  }
  const moved = await Promise.all(threadIds.map(scheduleWhenIdle));
  return moved.filter(Boolean).length;
}

/**
 * Set to `normal` to keep background threads at normal priority. Where the cores never go idle
 * (a CI runner shared with other jobs, the test suite under full load) an idle-priority thread
 * runs only a sliver of the time, so the log would be written only once the load drops.
 */
export const BACKGROUND_PRIORITY_ENV = 'AIRLOCK_BACKGROUND_PRIORITY';

/**
 * Starts a worker thread for background work: named `name` (at most 15 characters on Linux), at
 * the lowest priority once it runs (unless AIRLOCK_BACKGROUND_PRIORITY=normal), and unref'd so it
 * never keeps the process alive (whoever awaits its exit refs it first).
 */
export function startBackgroundWorker(script: string | URL, options: WorkerOptions & { name: string }): Worker {
  const worker = new Worker(script, options);
  worker.unref();
  if (process.env[BACKGROUND_PRIORITY_ENV] !== 'normal') worker.once('online', () => void lowerThreadPriority(options.name));
  return worker;
}
