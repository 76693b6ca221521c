import { readdirSync, readFileSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Lowers every thread of this process named `name` (Node names a worker's OS thread after its
 * `name` option) to the lowest scheduling priority, so it runs on CPU time nothing else wants.
 * Linux only: elsewhere there is no per-thread priority to set from Node, and it stays as it is.
 * Returns how many threads were lowered.
 */
export function lowerThreadPriority(name: string): number {
  if (process.platform !== 'linux') return 0;
  let lowered = 0;
  for (const threadId of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${threadId}/comm`, 'utf8').trim() !== name) continue;
      // On Linux, setpriority with a thread id sets that thread's nice value alone.
      setPriority(Number(threadId), constants.priority.PRIORITY_LOW);
      lowered += 1;
    } catch {
      // The thread ended while listed: nothing to lower.
    }
  }
  return lowered;
}

/**
 * Starts a worker thread for background work: named `name` (at most 15 characters on Linux), at
 * the lowest priority once it runs, and unref'd so it never keeps the process alive (whoever
 * awaits its exit refs it first).
 */
export function startBackgroundWorker(script: string | URL, options: WorkerOptions & { name: string }): Worker {
  const worker = new Worker(script, options);
  worker.unref();
  worker.once('online', () => lowerThreadPriority(options.name));
  return worker;
}
