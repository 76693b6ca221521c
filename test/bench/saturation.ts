import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { BenchProcesses } from './benchProcesses.ts';
import { RESULTS_DIR, SATURATION_CONCURRENCY, SATURATION_LOAD_MS } from './benchSettings.ts';
import { RSS_SETTLE_AFTER_LOAD_MS } from './issueTable.ts';
import type { ChildServer } from './childServer.ts';
import { createPool, runChatLoad } from './load.ts';
import { processCpuMs, waitUntilQuiet } from './processCpu.ts';
import { readProcessMemory } from './processMemory.ts';

/** Sustained saturation: what the log's backlog holds while forwarding takes every core, and after. */
export interface SaturationResult {
  loadMs: number;
  requests: number;
  failures: number;
  idleRssBytes: number;
  /** RSS every `sampleMs` during the load. */
  rssDuringBytes: number[];
  /** The forwarding thread's V8 heap (heapTotal) at the same moments. */
  heapDuringBytes: number[];
  maxRssDuringBytes: number;
  /** Right after the last request, then `settleMs` later. */
  rssAtEndBytes: number;
  rssAfterSettleBytes: number;
  settleMs: number;
  /** Process CPU from the load's start until it was quiet again (the log's catching up included), per request. */
  cpuUsPerRequest: number;
}

const SAMPLE_MS = 1_000;
const WARMUP_REQUESTS = 2_000;

/**
 * c=`concurrency` non-streamed chat for `loadMs` against the logged Airlock, its RSS sampled every
 * second; then its RSS once quiet and `settleMs` after the load. The bench's 2 s runs end before the
 * log thread's backlog shows: the load leaves it less CPU than its writes need.
 */
export async function measureSaturation(
  proxy: ChildServer,
  pids: readonly number[],
  options: { concurrency: number; loadMs: number; settleMs: number },
): Promise<SaturationResult> {
  const pool = createPool(proxy.url, options.concurrency);
  try {
    await runChatLoad({ pool, concurrency: options.concurrency, count: WARMUP_REQUESTS, maxMs: 10_000 });
    await waitUntilQuiet(pids);
    const idleRssBytes = readProcessMemory(proxy.pid).rssBytes;
    const rssDuringBytes: number[] = [];
    const heapDuringBytes: number[] = [];
    const sampler = setInterval(() => {
      rssDuringBytes.push(readProcessMemory(proxy.pid).rssBytes);
      void proxy.memoryUsage().then((usage) => heapDuringBytes.push(usage.heapTotal));
    }, SAMPLE_MS);
    const cpuBeforeMs = processCpuMs(proxy.pid);
    const run = await runChatLoad({
      pool,
      concurrency: options.concurrency,
      count: Number.POSITIVE_INFINITY,
      maxMs: options.loadMs,
    });
    clearInterval(sampler);
    const loadEndedAt = performance.now();
    const rssAtEndBytes = readProcessMemory(proxy.pid).rssBytes;
    await waitUntilQuiet(pids, { sampleMs: 200, maxBusyMs: 10, minQuietMs: 1_000, maxWaitMs: options.settleMs });
    const cpuUsPerRequest = ((processCpuMs(proxy.pid) - cpuBeforeMs) * 1000) / Math.max(1, run.latenciesMs.length);
    await delay(Math.max(0, loadEndedAt + options.settleMs - performance.now()));
    return {
      loadMs: options.loadMs,
      requests: run.latenciesMs.length,
      failures: run.failures,
      idleRssBytes,
      rssDuringBytes,
      heapDuringBytes,
      maxRssDuringBytes: Math.max(rssAtEndBytes, ...rssDuringBytes),
      rssAtEndBytes,
      rssAfterSettleBytes: readProcessMemory(proxy.pid).rssBytes,
      settleMs: options.settleMs,
      cpuUsPerRequest,
    };
  } finally {
    await pool.close();
  }
}

const mb = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);

export function formatSaturation(result: SaturationResult, concurrency: number): string {
  return [
    `Sustained saturation: c=${concurrency} for ${result.loadMs / 1000} s, Airlock with the log on (${result.requests} requests, ${result.failures} failed)`,
    `  RSS idle ${mb(result.idleRssBytes)} MB; during, every second: ${result.rssDuringBytes.map(mb).join(' ')}`,
    `  forwarding thread's heap, every second: ${result.heapDuringBytes.map(mb).join(' ')}`,
    `  RSS max during ${mb(result.maxRssDuringBytes)} MB, at the end ${mb(result.rssAtEndBytes)} MB, ` +
      `${result.settleMs / 1000} s after ${mb(result.rssAfterSettleBytes)} MB`,
    `  CPU per request (until quiet, the log's catching up included): ${result.cpuUsPerRequest.toFixed(0)} us`,
  ].join('\n');
}

/** 40 s of c=50 against the logged Airlock alone, as `airlock serve` runs it. */
export async function saturationOnly(processes: BenchProcesses, log: (line: string) => void): Promise<void> {
  const { start, startProxy, stop } = processes;
  log(`c=${SATURATION_CONCURRENCY} for ${SATURATION_LOAD_MS / 1000} s, log on`);
  const simulator = await start('upstreamServer.ts', []);
  const proxy = await startProxy('airlock', simulator.url, { log: true });
  const result = await measureSaturation(proxy, [simulator.pid, proxy.pid], {
    concurrency: SATURATION_CONCURRENCY,
    loadMs: SATURATION_LOAD_MS,
    settleMs: RSS_SETTLE_AFTER_LOAD_MS,
  });
  await stop(proxy, simulator);
  console.log(formatSaturation(result, SATURATION_CONCURRENCY));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = resolve(RESULTS_DIR, 'bench-saturation.json');
  writeFileSync(file, `${JSON.stringify({ generatedAt: new Date().toISOString(), loadavg: loadavg(), result }, null, 2)}\n`);
  log(`done; results in ${file}`);
}
