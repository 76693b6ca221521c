import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { withoutGatewayKey } from '../core/apiKey.ts';

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
    const options = { timeout: CHRT_TIMEOUT_MS, env: withoutGatewayKey(process.env) };
    execFile('chrt', ['--idle', '--pid', '0', String(threadId)], options, (error) => resolve(error === null));
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
export async function lowerThreadPriority(name: string, priority: Exclude<BackgroundPriority, 'normal'>): Promise<number> {
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
 * Background threads run at normal priority unless this says `nice` or `idle`. Lowered, the log
 * thread ran only a sliver of the time while other work held the cores (a build beside the
 * agents), and forwarding slept on locks it held meanwhile: its message port's queue, V8's
 * platform task queue. Under `stress-ng --cpu 2` with agent-like requests (five alternated
 * triples, 2026-11-26, DESIGN.md) the added p99 to the first streamed byte was 464-783 ms at
 * `idle`, 142-439 at `nice`, 63-173 at `normal`; the forwarding thread's longest sleep 492-1074,
 * 287-902 and 37-210 ms. Lowered, the log falls behind a load that takes every core instead of
 * sharing the cores with forwarding, for whoever prefers that.
 */
export const BACKGROUND_PRIORITY_ENV = 'AIRLOCK_BACKGROUND_PRIORITY';
const DEFAULT_BACKGROUND_PRIORITY: BackgroundPriority = 'normal';

let unknownPrioritySaid = false;

/** The priority AIRLOCK_BACKGROUND_PRIORITY asks for, or the default; a value it does not know is said once. */
export function backgroundPriority(env: NodeJS.ProcessEnv = process.env): BackgroundPriority {
  const value = env[BACKGROUND_PRIORITY_ENV];
  if (value === 'idle' || value === 'nice' || value === 'normal') return value;
  if (value !== undefined && value !== '' && !unknownPrioritySaid) {
    unknownPrioritySaid = true;
    process.emitWarning(
      `${BACKGROUND_PRIORITY_ENV}=${value} is not a priority Airlock knows (normal, nice or idle): background threads run at ${DEFAULT_BACKGROUND_PRIORITY} priority.`,
    );
  }
  return DEFAULT_BACKGROUND_PRIORITY;
}

/**
 * Starts a worker thread for background work: named `name` (at most 15 characters on Linux),
 * lowered once it runs if backgroundPriority() says so, and unref'd so it never keeps the process alive
 * (whoever awaits its exit refs it first).
 */
export function startBackgroundWorker(script: string | URL, options: WorkerOptions & { name: string }): Worker {
  const worker = new Worker(script, options);
  worker.unref();
  const priority = backgroundPriority();
  if (priority !== 'normal') worker.once('online', () => void lowerThreadPriority(options.name, priority));
  return worker;
}
