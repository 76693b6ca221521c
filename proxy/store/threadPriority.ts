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
 * How low background threads run: `idle` is nice 19 and then the SCHED_IDLE policy, which the
 * kernel preempts as soon as anything else wants the core; `nice` is nice 19 alone; `normal`
 * leaves them as started.
 */
export type BackgroundPriority = 'idle' | 'nice' | 'normal';

/**
 * Lowers every thread of this process named `name` (Node names a worker's OS thread after its
 * `name` option): nice 19, then with `idle` the SCHED_IDLE policy. Node has no call for a
 * scheduling policy, so `chrt` sets it; where it is missing the thread stays at nice 19. Linux
 * only: elsewhere there is no per-thread priority to set from Node. Resolves with how many
 * threads were moved to SCHED_IDLE.
 */
export async function lowerThreadPriority(name: string, priority: Exclude<BackgroundPriority, 'normal'> = 'idle'): Promise<number> {
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
  if (priority === 'nice') return 0;
  const moved = await Promise.all(threadIds.map(scheduleWhenIdle));
  return moved.filter(Boolean).length;
}

/**
 * `normal` keeps background threads at normal priority: where the cores never go idle (a CI runner
 * shared with other jobs, the test suite under full load) a lowered thread runs only a sliver of
 * the time, so the log would be written only once the load drops. `nice` or `idle` chooses how low
 * (BackgroundPriority); unset or anything else, the default.
 */
export const BACKGROUND_PRIORITY_ENV = 'AIRLOCK_BACKGROUND_PRIORITY';
const DEFAULT_BACKGROUND_PRIORITY: BackgroundPriority = 'idle';

/** The priority AIRLOCK_BACKGROUND_PRIORITY asks for, or the default. */
export function backgroundPriority(env: NodeJS.ProcessEnv = process.env): BackgroundPriority {
  const value = env[BACKGROUND_PRIORITY_ENV];
  return value === 'idle' || value === 'nice' || value === 'normal' ? value : DEFAULT_BACKGROUND_PRIORITY;
}

/**
 * Starts a worker thread for background work: named `name` (at most 15 characters on Linux),
 * lowered to backgroundPriority() once it runs, and unref'd so it never keeps the process alive
 * (whoever awaits its exit refs it first).
 */
export function startBackgroundWorker(script: string | URL, options: WorkerOptions & { name: string }): Worker {
  const worker = new Worker(script, options);
  worker.unref();
  const priority = backgroundPriority();
  if (priority !== 'normal') worker.once('online', () => void lowerThreadPriority(options.name, priority));
  return worker;
}
