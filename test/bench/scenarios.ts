import { setTimeout as delay } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import type { ChildServer } from './childServer.ts';
import type { Pool } from 'undici';
import { createPool, postBody, runChatLoad, type LoadRun } from './load.ts';
import { processCpuMs } from './processCpu.ts';
import { threadCpuDelta, threadCpuMs, type ThreadCpuMs } from './threadCpu.ts';
import { readProcessMemory, sampleRss } from './processMemory.ts';
import {
  cpuPerRequestUs,
  gaps,
  lowerMiddleIndex,
  meanSeries,
  median,
  percentile,
  summarizeLatencies,
  type LatencySummary,
} from './stats.ts';
import { traceStream } from './streams.ts';

export interface ThroughputResult extends LatencySummary {
  requestsPerSecond: number;
  failures: number;
  /** Every round's throughput, in round order: round i of each target ran at about the same time. */
  roundRequestsPerSecond: number[];
  /**
   * CPU of the target's process (all its threads) per completed request, over every round: from each
   * run's start until the servers were quiet again, so work a proxy defers past the run (the log's
   * writing and indexing) counts too. Null where no process was named.
   */
  cpuUsPerRequest: number | null;
  /** The same for each round, in round order. */
  roundCpuUsPerRequest: number[];
  /** Requests the target answered before its first round (the warm-up), not measured. */
  warmupRequests: number;
  /** With `threadCpu`: each round's CPU by thread name (threadCpu.ts), in round order, charged as `roundCpuUsPerRequest` is. */
  roundThreadCpuMs?: ThreadCpuMs[];
}

const DEFAULT_WARMUP: Warmup = { requests: 500, maxMs: 5_000 };

/**
 * Requests each target answers before its rounds, until `maxMs` passed; then, after the servers
 * are quiet, `afterQuietRequests` more (the first requests after a quiet spell re-optimize code in
 * every target, the floor too).
 */
export interface Warmup {
  requests: number;
  maxMs: number;
  afterQuietRequests?: number;
  /** That quiet spell lasts at least this long (C1_WARMUP says why). */
  quietMs?: number;
}

/** The quiet spell after a warm-up: until the servers are quiet, and at least `quietMs`; then quiet again (what the spell set off). */
export async function quietSpell(warmup: Warmup, settle: () => Promise<unknown>): Promise<void> {
  const startedMs = performance.now();
  await settle();
  const restMs = (warmup.quietMs ?? 0) - (performance.now() - startedMs);
  if (restMs <= 0) return;
  await delay(restMs);
  await settle();
}

/**
 * Each target's median run of `rounds` at a fixed concurrency, plus every round's figure for
 * paired comparisons: on this shared machine single runs swing by a quarter both ways (a best-of
 * picked lucky outliers, up to 1.35x the floor for one round). Rounds go round-robin over the
 * targets, in reverse order every other round, so neither a burst of outside load nor a place in
 * the order lands on one target only; each pool is warmed up first, all targets side by side, and
 * not measured. Before each run `settle` waits for the servers' deferred work, which would
 * otherwise slow the next target.
 */
export async function measureThroughput<T extends string>(
  urls: Record<T, string>,
  options: {
    concurrency: number;
    count: number;
    rounds: number;
    maxMs: number;
    settle: () => Promise<unknown>;
    /** The process behind each target, whose CPU is read around its runs. */
    pids?: Partial<Record<T, number>>;
    /** At `concurrency`, unmeasured; 500 requests unless given. */
    warmup?: Warmup;
    /** Also read each round's CPU per thread of the targets' processes (schedstat, finer than the process's ticks). */
    threadCpu?: boolean;
  },
): Promise<Record<T, ThroughputResult>> {
  const targets = Object.keys(urls) as T[];
  const pools = new Map(targets.map((target) => [target, createPool(urls[target], options.concurrency)] as const));
  const runs = new Map<T, LoadRun[]>(targets.map((target) => [target, []]));
  const cpuMs = new Map<T, number[]>(targets.map((target) => [target, []]));
  const threadMs = new Map<T, ThreadCpuMs[]>(targets.map((target) => [target, []]));
  let lastRun: { target: T; pid: number; cpuBeforeMs: number; threadsBefore: ThreadCpuMs | null } | null = null;
  /** Charges the CPU since the last run started to it: called once the servers are quiet again. */
  const chargeLastRun = (): void => {
    if (lastRun !== null) {
      cpuMs.get(lastRun.target)?.push(processCpuMs(lastRun.pid) - lastRun.cpuBeforeMs);
      if (lastRun.threadsBefore !== null)
        threadMs.get(lastRun.target)?.push(threadCpuDelta(lastRun.threadsBefore, threadCpuMs(lastRun.pid)));
    }
    lastRun = null;
  };
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  const warmupRequests = new Map<T, number>();
  try {
    // Side by side: the warm-up is not measured, and a long one then takes the time of the slowest target only.
    const warmUp = (requests: number): Promise<unknown> =>
      Promise.all(
        targets.map(async (target) => {
          const pool = pools.get(target) as Pool;
          const run = await runChatLoad({ pool, concurrency: options.concurrency, count: requests, maxMs: warmup.maxMs });
          warmupRequests.set(target, (warmupRequests.get(target) ?? 0) + run.latenciesMs.length);
        }),
      );
    await warmUp(warmup.requests);
    const afterQuietRequests = warmup.afterQuietRequests ?? 0;
    if (afterQuietRequests > 0) {
      await quietSpell(warmup, options.settle);
      await warmUp(afterQuietRequests);
    }
    for (let round = 0; round < options.rounds; round += 1) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const pool = pools.get(target);
        if (pool === undefined) continue;
        await options.settle();
        chargeLastRun();
        const pid = options.pids?.[target];
        if (pid !== undefined)
          lastRun = { target, pid, cpuBeforeMs: processCpuMs(pid), threadsBefore: options.threadCpu ? threadCpuMs(pid) : null };
        runs.get(target)?.push(await runChatLoad({ pool, concurrency: options.concurrency, count: options.count, maxMs: options.maxMs }));
      }
    }
    await options.settle();
    chargeLastRun();
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()));
  }
  const results = {} as Record<T, ThroughputResult>;
  for (const [target, targetRuns] of runs) {
    const run = medianRun(targetRuns);
    const targetCpuMs = cpuMs.get(target) ?? [];
    const requests = targetRuns.map((targetRun) => targetRun.latenciesMs.length);
    results[target] = {
      ...summarizeLatencies(run.latenciesMs),
      requestsPerSecond: run.requestsPerSecond,
      failures: run.failures,
      roundRequestsPerSecond: targetRuns.map((targetRun) => targetRun.requestsPerSecond),
      cpuUsPerRequest: targetCpuMs.length === 0 ? null : cpuPerRequestUs(targetCpuMs, requests),
      roundCpuUsPerRequest: targetCpuMs.map((ms, index) => cpuPerRequestUs([ms], [requests[index] ?? 0])),
      warmupRequests: warmupRequests.get(target) ?? 0,
      ...(options.threadCpu ? { roundThreadCpuMs: threadMs.get(target) ?? [] } : {}),
    };
  }
  return results;
}

/** The run with the median throughput (the lower middle one for an even count). */
function medianRun(runs: LoadRun[]): LoadRun {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const middle = sorted[lowerMiddleIndex(sorted.length)];
  if (middle === undefined) throw new Error('no runs to take the median of');
  return middle;
}

export interface StreamingResult {
  streams: number;
  ttfbP50Ms: number;
  /** Request start to the first content delta (the first token), median. */
  ttftP50Ms: number;
  /** Mean gap between consecutive content deltas, position by position. */
  meanGapsMs: number[];
  mergedReads: number;
  /** Streams that delivered fewer content deltas than expected or no [DONE]. */
  incompleteStreams: number;
}

/** Streams one after another (concurrency 1), so each relay's own timing shows. */
export async function measureStreaming(url: string, streams: number, expectedDeltas: number): Promise<StreamingResult> {
  const pool = createPool(url, 1);
  try {
    await traceStream(pool);
    const traces = [];
    for (let index = 0; index < streams; index += 1) traces.push(await traceStream(pool));
    return {
      streams,
      ttfbP50Ms: percentile(
        traces.map((trace) => trace.ttfbMs),
        0.5,
      ),
      ttftP50Ms: percentile(
        traces.map((trace) => trace.ttfbMs + (trace.deltaTimesMs[0] ?? Number.NaN)),
        0.5,
      ),
      meanGapsMs: meanSeries(traces.map((trace) => gaps(trace.deltaTimesMs))),
      mergedReads: traces.reduce((sum, trace) => sum + trace.mergedReads, 0),
      incompleteStreams: traces.filter((trace) => trace.deltaTimesMs.length !== expectedDeltas || !trace.sawDone).length,
    };
  } finally {
    await pool.close();
  }
}

export interface OpenStreamsResult {
  openStreams: number;
  rssBeforeBytes: number;
  rssDuringBytes: number;
  /** After the streams ended and a collection: what the proxy kept. */
  rssAfterBytes: number;
  bytesPerStream: number;
}

/**
 * Opens `count` slow streams at once through the proxy process, waits until each has its first
 * byte, then reads the memory the proxy holds while all are open (collectAndReadRss: collected,
 * trimmed and read in one turn, as before the streams). Streams are aborted afterwards.
 */
export async function measureOpenStreams(proxy: ChildServer, count: number, firstByteTimeoutMs: number): Promise<OpenStreamsResult> {
  const pool = createPool(proxy.url, count);
  const abort = new AbortController();
  try {
    await runChatLoad({ pool, concurrency: 20, count: 200, maxMs: 5_000 });
    // On a busy machine the log thread was still writing the warm-up requests while the streams
    // opened, and its heap's growth for them counted as the streams'.
    await proxy.flushLog();
    const rssBeforeBytes = await proxy.collectAndReadRss();
    let firstBytes = 0;
    let streams: Promise<unknown>[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`only ${firstBytes} of ${count} streams had a first byte within ${firstByteTimeoutMs} ms`));
      }, firstByteTimeoutMs);
      const onFirstByte = (): void => {
        firstBytes += 1;
        if (firstBytes < count) return;
        clearTimeout(timer);
        resolve();
      };
      streams = Array.from({ length: count }, () => traceStream(pool, abort.signal, onFirstByte).catch(() => null));
    });
    // As before the streams: the log thread has taken in what they posted (their rows' state stays counted).
    await proxy.flushLog();
    const rssDuringBytes = await proxy.collectAndReadRss();
    abort.abort();
    await Promise.all(streams);
    const rssAfterBytes = await proxy.collectAndReadRss();
    return { openStreams: count, rssBeforeBytes, rssDuringBytes, rssAfterBytes, bytesPerStream: (rssDuringBytes - rssBeforeBytes) / count };
  } finally {
    abort.abort();
    await pool.destroy();
  }
}

export interface LargeBodyResult {
  bodyBytes: number;
  /** This upload's time; the bench reports the median of alternated uploads instead (timeLargeBodies). */
  elapsedMs: number;
  byteForByte: boolean;
  /** Peak RSS above the RSS before the upload; null where no proxy process sits in between. */
  peakGrowthBytes: number | null;
  /** RSS before the upload and a moment after its answer; null without a proxy process. */
  rssBeforeBytes: number | null;
  rssAfterBytes: number | null;
}

const RSS_SAMPLE_INTERVAL_MS = 2;
const BODY_SETTLE_MS = 300;

/** Whether the hashing sink's answer says it got `body` byte for byte. */
function sinkGotWhole(answer: unknown, body: Buffer, expectedSha256: string): boolean {
  const { sha256, bytes } = answer as { sha256?: unknown; bytes?: unknown };
  return sha256 === expectedSha256 && bytes === body.length;
}

/**
 * Posts `body` to the hashing sink, directly (a URL) or through a proxy process, and checks the
 * sink got exactly these bytes; for a proxy, also its peak RSS above what it held before.
 */
export async function measureLargeBody(via: string | ChildServer, body: Buffer, path: string): Promise<LargeBodyResult> {
  const url = typeof via === 'string' ? via : via.url;
  const pid = typeof via === 'string' ? null : via.pid;
  const expectedSha256 = createHash('sha256').update(body).digest('hex');
  const pool = createPool(url, 1);
  try {
    for (let index = 0; index < 5; index += 1) await postBody(pool, path, Buffer.from('{"model":"text-embedding-3-small","input":"warm"}'));
    // No forced GC here: the backing stores it frees would be reused for the body and hide it from RSS.
    await delay(BODY_SETTLE_MS);
    const before = pid === null ? null : readProcessMemory(pid);
    const sampler = pid === null ? null : sampleRss(pid, RSS_SAMPLE_INTERVAL_MS);
    const result = await postBody(pool, path, body);
    const sampledPeakBytes = sampler?.stop() ?? null;
    let peakGrowthBytes: number | null = null;
    if (pid !== null && before !== null && sampledPeakBytes !== null) {
      const after = readProcessMemory(pid);
      // VmHWM counts only if this upload raised it; otherwise it is a start-up peak.
      const peakBytes = after.peakRssBytes > before.peakRssBytes ? Math.max(after.peakRssBytes, sampledPeakBytes) : sampledPeakBytes;
      peakGrowthBytes = peakBytes - before.rssBytes;
    }
    await delay(BODY_SETTLE_MS);
    const rssAfterBytes = pid === null ? null : readProcessMemory(pid).rssBytes;
    return {
      rssBeforeBytes: before?.rssBytes ?? null,
      rssAfterBytes,
      bodyBytes: body.length,
      elapsedMs: result.elapsedMs,
      byteForByte: result.status === 200 && sinkGotWhole(result.json, body, expectedSha256),
      peakGrowthBytes,
    };
  } finally {
    await pool.close();
  }
}

/**
 * The median time of `uploads` uploads of `body` through each target, their order reversed every
 * round, so a moment the machine is busy falls on every target alike: one upload each put the
 * same code at 1.06x to 1.71x the floor in three runs.
 */
export async function timeLargeBodies<T extends string>(
  urls: Record<T, string>,
  body: Buffer,
  path: string,
  uploads: number,
): Promise<Record<T, number>> {
  const targets = Object.keys(urls) as T[];
  const pools = new Map(targets.map((target) => [target, createPool(urls[target], 1)] as const));
  const times = new Map(targets.map((target) => [target, [] as number[]] as const));
  const expectedSha256 = createHash('sha256').update(body).digest('hex');
  try {
    for (let round = 0; round < uploads; round += 1) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const result = await postBody(pools.get(target)!, path, body);
        if (result.status !== 200) throw new Error(`a 10 MB upload through ${target} was answered ${result.status}`);
        // A target that lost or reordered bytes would look fast: the hashing sink says what arrived.
        if (!sinkGotWhole(result.json, body, expectedSha256))
          throw new Error(`a 10 MB upload through ${target} did not reach the sink byte for byte`);
        times.get(target)!.push(result.elapsedMs);
      }
    }
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()));
  }
  return Object.fromEntries(targets.map((target) => [target, median(times.get(target)!)])) as Record<T, number>;
}
