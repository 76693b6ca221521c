import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { glibcMallocTrim } from './mallocTrim.ts';

/**
 * Gives a burst's memory back once the thread is idle again. Under load V8 grows a heap to up to
 * four times what is live (it trades memory for fewer collections), and with nothing allocating
 * afterwards no collection runs, so the heap stays at its peak for good: after the bench's c=50
 * runs the forwarding thread held 186 MB of heap for 25 MB live, and RSS stayed at 400-540 MB
 * for as long as it was watched. A full collection with compaction while idle gives those pages
 * back (heap 196 -> 23 MB). It costs about 32 ms of CPU with 25 MB live: it runs only once no
 * request has been in flight and the loop nearly idle for 30 s, once after each burst; a request
 * arriving during it waits for it.
 */
export interface ReclaimOptions {
  /** How often the thread's idleness and heap are looked at. */
  checkIntervalMs: number;
  /**
   * Heap growth past the size after the last collection that makes one worthwhile. Low enough for a
   * light use (200 requests at c=1 grew the heap 5.5-6 MB and, uncollected, left RSS 9-10 MB over
   * idle for good; collected, 6 MB), as it runs only after a quiet spell, once.
   */
  minGrowthBytes: number;
  /** Event-loop utilization over an interval at or below which the thread counts as idle for it. */
  maxIdleUtilization: number;
  /**
   * Intervals in a row the thread must be idle first. A collection costs the next burst too: its
   * heap grows back from the live size, collecting far more often meanwhile (the first 2 s of a c=50
   * run after one took 2-2.8x the CPU per request), so short pauses in a load are left alone.
   */
  idleIntervals: number;
  /**
   * One collection at the first idle look after start (looking this often, and at the first regular
   * check), whatever the growth: loading the modules leaves the heap about 1.5 times what is live (the forwarding thread's 37 MB
   * for 25; 16 MB of RSS came back, at 30-45 ms of CPU once). Null: none. A thread with work in
   * hand at its first regular check gets it only at its first long quiet (`idleIntervals`), when a
   * burst's collection would run: at the first short quiet it cleared what the code V8 had
   * optimized under the work embeds, which V8 then compiled again in the work's next rounds (about
   * 250 functions; DESIGN.md, "Warm at c=1"); never run, a busy start kept about 5 MB for good.
   */
  startupCollectionMs: number | null;
  /**
   * Collections at the idle checks right after a burst's collection, before the trim. The first
   * leaves the pages its sweep emptied held; two more gave them back: 60 s after the bench's load
   * RSS read 102.2-102.6 MB with two, 104.2-104.6 with one and 104.0-104.8 with none (alternated
   * probe runs, 2026-11-27), and a collection by hand then found nothing more. Each costs what the
   * first does (about 30 ms of CPU), once per burst.
   */
  followUpCollections: number;
}

export const DEFAULT_RECLAIM_OPTIONS: ReclaimOptions = {
  checkIntervalMs: 5_000,
  minGrowthBytes: 4 * 1024 * 1024,
  maxIdleUtilization: 0.05,
  idleIntervals: 6,
  startupCollectionMs: 250,
  followUpCollections: 2,
};

export interface ReclaimState {
  heapTotalBytes: number;
  /** The heap's total size after the last reclaim (or at start). */
  baselineBytes: number;
  /** Checks in a row, this one included, at which the thread was idle and had nothing in hand. */
  idleIntervals: number;
}

/** Whether a check finds the thread idle: nothing in hand (no request in flight) and its loop nearly unused. */
export function isIdle(utilization: number, busy: boolean, options: ReclaimOptions): boolean {
  return !busy && utilization <= options.maxIdleUtilization;
}

/** Whether to collect now: idle long enough, and the heap grew enough since the last collection to matter. */
export function shouldReclaim(state: ReclaimState, options: ReclaimOptions): boolean {
  return state.idleIntervals >= options.idleIntervals && state.heapTotalBytes - state.baselineBytes >= options.minGrowthBytes;
}

type Collect = () => void;

/**
 * A full, compacting collection of this thread's heap, or null where V8's `gc` cannot be reached.
 * `gc` is there when the process was started with `--expose-gc` (Electron: `--js-flags=--expose-gc`
 * on its command line). Plain Node offers no API for it, but Node leaves V8's flags unfrozen
 * (v8.setFlagsFromString is public), so setting `--expose-gc` at run time exposes `gc` in
 * contexts created after. Electron may freeze them, where a change aborts the process: there it
 * is never tried. `last-resort` is the flavor V8 uses under memory pressure; it also shrinks the heap.
 */
export function compactingCollector(): Collect | null {
  const gc = exposedGc();
  if (gc === null) return null;
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

function exposedGc(): ((options: object) => void) | null {
  const global = (globalThis as { gc?: unknown }).gc;
  if (typeof global === 'function') return global as (options: object) => void;
  if (process.versions.electron !== undefined) return null;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as (options: object) => void) : null;
  } catch {
    return null;
  }
}

/** Set by trimWhenIdle; taken by this thread's next reclaimer check that finds it idle and can trim. */
let trimAsked = false;

/**
 * Asks this thread's trimming reclaimer (the forwarding thread's: the others pass no releaseFreed)
 * to hand glibc's free pages back at its next idle check. Memory other threads free (a stopped
 * thread's heap, the log thread's page cache) stays resident until a trim, and a trim holds the
 * allocator's locks, which forwarding shares: a lowered background thread, or one stopping under load,
 * must not hold them, so only the forwarding thread trims, and only while idle.
 */
export function trimWhenIdle(): void {
  trimAsked = true;
}

export interface MemoryReclaimer {
  stop(): void;
  /** How many collections it ran. */
  readonly reclaims: number;
}

/**
 * Checks every `checkIntervalMs` (an unref'd timer: it never keeps a process alive) and collects
 * when `shouldReclaim` says so. `busy` tells whether the thread has work in hand at a check. After
 * a collection, the next check that finds the thread idle also hands the C allocator's free pages
 * back (`releaseFreed`, mallocTrim.ts): a check later, because V8 frees the buffers a collection
 * found dead on a background thread after it. After a burst's collection the next
 * `followUpCollections` idle checks collect again, and the trim follows them. `whileLongIdle` runs
 * at every check once the thread has been idle for `idleIntervals` checks in a row, before any
 * collection.
 */
export function startMemoryReclaimer(
  busy: () => boolean,
  options: ReclaimOptions = DEFAULT_RECLAIM_OPTIONS,
  collect: Collect | null = compactingCollector(),
  releaseFreed: (() => unknown) | null = glibcMallocTrim(),
  whileLongIdle: (() => void) | null = null,
): MemoryReclaimer {
  let reclaims = 0;
  let idleIntervals = 0;
  let baselineBytes = getHeapStatistics().total_heap_size;
  let lastUtilization: EventLoopUtilization = performance.eventLoopUtilization();
  // The start-up's garbage is collected at the first idle look, an early one or the first regular
  // one; missed there, at the first long quiet.
  let startupPending = options.startupCollectionMs !== null;
  let firstCheck = true;
  let releasePending = false;
  let followUpsLeft = 0;
  const run = (startup: boolean): void => {
    collect?.();
    followUpsLeft = startup ? 0 : options.followUpCollections;
    releasePending = releaseFreed !== null;
    idleIntervals = 0;
    reclaims += 1;
    startupPending = false;
    baselineBytes = getHeapStatistics().total_heap_size;
    lastUtilization = performance.eventLoopUtilization();
  };
  // Looks every startupCollectionMs until the first idle one, until the first regular check.
  let startupTimer: NodeJS.Timeout | null = null;
  const timer = setInterval(() => {
    if (startupTimer !== null) clearInterval(startupTimer);
    const utilization = performance.eventLoopUtilization(lastUtilization).utilization;
    lastUtilization = performance.eventLoopUtilization();
    const heapTotalBytes = getHeapStatistics().total_heap_size;
    // A heap that shrank on its own sets the mark lower, so the next burst is measured from there.
    baselineBytes = Math.min(baselineBytes, heapTotalBytes);
    const idle = isIdle(utilization, busy(), options);
    idleIntervals = idle ? idleIntervals + 1 : 0;
    const startupDue = startupPending && idle && (firstCheck || idleIntervals >= options.idleIntervals);
    firstCheck = false;
    // Before the collection, so what it lets go of is collected with the rest.
    if (idleIntervals >= options.idleIntervals) whileLongIdle?.();
    if (followUpsLeft > 0) {
      // Only while the quiet after the burst lasts: a busy check starts a new burst, which gets its own.
      followUpsLeft = idle ? followUpsLeft - 1 : 0;
      if (idle && collect !== null) {
        collect();
        baselineBytes = getHeapStatistics().total_heap_size;
        return;
      }
    }
    if ((releasePending || trimAsked) && idle && releaseFreed !== null) {
      releasePending = false;
      trimAsked = false;
      releaseFreed();
    }
    if (collect === null) return;
    const burstDue = shouldReclaim({ heapTotalBytes, baselineBytes, idleIntervals }, options);
    if (startupDue || burstDue) run(!burstDue);
  }, options.checkIntervalMs);
  timer.unref();
  let startupUtilization = performance.eventLoopUtilization();
  startupTimer =
    options.startupCollectionMs === null
      ? null
      : setInterval(() => {
          // Idle over the whole look, not just nothing in flight this instant: under a load it would stall requests.
          const utilization = performance.eventLoopUtilization(startupUtilization).utilization;
          startupUtilization = performance.eventLoopUtilization();
          if (collect !== null && startupPending && isIdle(utilization, busy(), options)) run(true);
          if (!startupPending && startupTimer !== null) clearInterval(startupTimer);
        }, options.startupCollectionMs);
  startupTimer?.unref();
  return {
    stop: () => {
      clearInterval(timer);
      if (startupTimer !== null) clearInterval(startupTimer);
    },
    get reclaims() {
      return reclaims;
    },
  };
}
