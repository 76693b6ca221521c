import { openSync, readSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What a watched event loop showed since the last read (childServer.ts's EventLoopDelay). */
export interface LoopWatchReading {
  /** monitorEventLoopDelay's longest timer delay. */
  maxMs: number;
  p99Ms: number;
  /** The most CPU this thread spent between two turns of a 1 ms timer (schedstat's run time on Linux). */
  maxBusyMs: number;
  /**
   * The longest gap between two turns of that timer less the time this thread waited for a core in
   * it (Linux's schedstat): how long the loop held itself, whoever else wanted the cores. Null
   * where schedstat cannot be read.
   */
  maxOwnDelayMs: number | null;
  /** In the turn with the longest gap: the time the thread was runnable and waited for a core. */
  longestGapCoreWaitMs: number | null;
  /**
   * In the turn with the longest own delay: the part of it the thread slept, neither running nor
   * waiting for a core (blocked on a lock, or joining V8's helper threads while they wait for one).
   */
  longestOwnDelayAsleepMs: number | null;
}

const TICK_MS = 1;

interface SchedStat {
  /** Nanoseconds this thread has run (exact; getrusage's per-thread CPU is scaled from ticks and lags by milliseconds). */
  runNs: number;
  /** Nanoseconds this thread has waited on a run queue. */
  waitNs: number;
}

/**
 * This thread's schedstat, opened once and read from the start each turn (an open and a close
 * every millisecond would add work to the loop being measured); null off Linux.
 */
function schedStatReader(): () => SchedStat | null {
  let fd: number;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return () => null;
  }
  const buffer = Buffer.alloc(128);
  return () => {
    const [runNs, waitNs] = buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0)).split(' ');
    return { runNs: Number(runNs), waitNs: Number(waitNs) };
  };
}

/**
 * Watches this thread's event loop while enabled: monitorEventLoopDelay, plus a 1 ms timer that
 * reads per turn the thread's CPU and its wait for a core. On a 2-core machine shared with the load
 * generator and the upstream, the OS gives the core to them at times, and the timer's delay counts
 * that too; the wait separates it from what the loop did itself.
 */
export function createLoopWatch(): { enable(): void; disable(): void; read(): LoopWatchReading } {
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  let ticker: NodeJS.Timeout | null = null;
  let maxBusyMs = 0;
  let maxOwnDelayMs: number | null = null;
  let longestGapMs = 0;
  let longestGapCoreWaitMs: number | null = null;
  let longestOwnDelayAsleepMs: number | null = null;
  let lastCpu = process.threadCpuUsage();
  let lastAtMs = performance.now();
  const schedStat = schedStatReader();
  let lastStat = schedStat();
  const mark = (): void => {
    lastCpu = process.threadCpuUsage();
    lastAtMs = performance.now();
    lastStat = schedStat();
  };
  const tick = (): void => {
    const gapMs = performance.now() - lastAtMs;
    const stat = schedStat();
    if (stat === null || lastStat === null) {
      const cpu = process.threadCpuUsage(lastCpu);
      maxBusyMs = Math.max(maxBusyMs, (cpu.user + cpu.system) / 1000);
    } else {
      const runMs = (stat.runNs - lastStat.runNs) / 1e6;
      const coreWaitMs = (stat.waitNs - lastStat.waitNs) / 1e6;
      const ownDelayMs = gapMs - TICK_MS - coreWaitMs;
      maxBusyMs = Math.max(maxBusyMs, runMs);
      if (maxOwnDelayMs === null || ownDelayMs > maxOwnDelayMs) {
        maxOwnDelayMs = ownDelayMs;
        // The timer's own millisecond is spent asleep in the poll: not counted as blocked.
        longestOwnDelayAsleepMs = Math.max(0, ownDelayMs - runMs);
      }
      if (gapMs > longestGapMs) {
        longestGapMs = gapMs;
        longestGapCoreWaitMs = coreWaitMs;
      }
    }
    mark();
    ticker = setTimeout(tick, TICK_MS);
  };
  return {
    enable() {
      loopDelay.enable();
      mark();
      ticker ??= setTimeout(tick, TICK_MS);
    },
    disable() {
      loopDelay.disable();
      if (ticker !== null) clearTimeout(ticker);
      ticker = null;
    },
    read() {
      const reading = {
        maxMs: loopDelay.max / 1e6,
        p99Ms: loopDelay.percentile(99) / 1e6,
        maxBusyMs,
        maxOwnDelayMs,
        longestGapCoreWaitMs,
        longestOwnDelayAsleepMs,
      };
      loopDelay.reset();
      maxBusyMs = 0;
      maxOwnDelayMs = null;
      longestGapMs = 0;
      longestGapCoreWaitMs = null;
      longestOwnDelayAsleepMs = null;
      return reading;
    },
  };
}
