import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_INDEX_IDLE_DELAY_MS } from '../../proxy/store/write/eventIngest.ts';
import { procStatFields } from '../support/procStat.ts';

/** Clock ticks per second for /proc times (USER_HZ): 100 on every Linux this bench runs on. */
const TICKS_PER_SECOND = 100;

/** CPU time a process used so far, all its threads together (utime + stime from /proc/<pid>/stat). */
export function processCpuMs(pid: number, procRoot = '/proc'): number {
  const fields = procStatFields(`${procRoot}/${pid}/stat`);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

export interface QuietOptions {
  sampleMs: number;
  /** CPU per sample, over all the processes, below which they count as quiet. */
  maxBusyMs: number;
  /** How long in a row the processes must stay quiet: longer than any pause before deferred work starts. */
  minQuietMs: number;
  maxWaitMs: number;
}

/**
 * The logged proxy starts indexing bodies for search after DEFAULT_INDEX_IDLE_DELAY_MS without
 * events: a quiet spell shorter than that pause ended the wait before that work began, and it then
 * ran during the next target's round (sometimes the logged one's own, at full speed).
 */
export const DEFAULT_QUIET: QuietOptions = {
  sampleMs: 200,
  maxBusyMs: 10,
  minQuietMs: DEFAULT_INDEX_IDLE_DELAY_MS + 200,
  maxWaitMs: 15_000,
};

/**
 * Waits until the processes have stopped working on their own for `minQuietMs`: a proxy's deferred
 * work (the log's background full-text indexing) then lands in no other target's measurement.
 * Returns the wait.
 */
export async function waitUntilQuiet(pids: readonly number[], options: QuietOptions = DEFAULT_QUIET): Promise<number> {
  const total = (): number => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const startedMs = performance.now();
  let before = total();
  let quietMs = 0;
  while (quietMs < options.minQuietMs && performance.now() - startedMs < options.maxWaitMs) {
    await delay(options.sampleMs);
    const now = total();
    quietMs = now - before <= options.maxBusyMs ? quietMs + options.sampleMs : 0;
    before = now;
  }
  return performance.now() - startedMs;
}
