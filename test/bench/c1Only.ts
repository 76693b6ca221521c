/**
 * `npm run bench -- --only c1`: the full bench's c=1 runs alone (the same processes, warm-up, quiet
 * spells and alternated rounds as measureRelays), with each round's CPU per thread of every proxy
 * (threadCpu.ts): issue 20's warm c=1 CPU line, for the floor, Airlock log off and log on, in about
 * two minutes. Writes test-results/bench-c1.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchProcesses } from './benchProcesses.ts';
import { C1_RUNS, RESULTS_DIR, STREAM_CHUNKS, STREAM_CHUNK_INTERVAL_MS } from './benchSettings.ts';
import { MAX_CPU_RATIO_TO_FLOOR } from './issueTable.ts';
import { waitUntilQuiet } from './processCpu.ts';
import { measureThroughput, type ThroughputResult } from './scenarios.ts';
import type { ThreadCpuMs } from './threadCpu.ts';

type C1Target = 'direct' | 'floor' | 'undiciFloor' | 'airlock' | 'airlockLogged';

export async function c1Only(processes: BenchProcesses, log: (line: string) => void): Promise<void> {
  const { start, startProxy, stop } = processes;
  const loadAverageBefore = loadavg();
  // As measureRelays starts them: the simulator streams as there, and the logged Airlock writes to a directory of its own.
  const simulator = await start('upstreamServer.ts', [
    '--chunk-count',
    String(STREAM_CHUNKS),
    '--chunk-interval-ms',
    String(STREAM_CHUNK_INTERVAL_MS),
  ]);
  const logDir = mkdtempSync(join(tmpdir(), 'airlock-bench-log-'));
  const proxies = await Promise.all([
    startProxy('floor', simulator.url),
    startProxy('undici-floor', simulator.url),
    startProxy('airlock', simulator.url),
    startProxy('airlock', simulator.url, { log: true, logDir }),
  ]);
  const [floor, undiciFloor, airlock, airlockLogged] = proxies;
  const servers = { direct: simulator, floor, undiciFloor, airlock, airlockLogged };
  const urls = Object.fromEntries(Object.entries(servers).map(([target, server]) => [target, server.url])) as Record<C1Target, string>;
  const pids = Object.fromEntries(Object.entries(servers).map(([target, server]) => [target, server.pid])) as Record<C1Target, number>;
  const settle = (): Promise<number> => waitUntilQuiet(Object.values(pids));
  await settle();
  log('non-streaming, concurrency 1');
  const c1 = await measureThroughput(urls, { ...C1_RUNS, settle, pids, threadCpu: true });
  await stop(...proxies, simulator);
  rmSync(logDir, { recursive: true, force: true });
  console.log(formatC1(c1));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = resolve(RESULTS_DIR, 'bench-c1.json');
  const machine = { loadAverageBefore, loadAverageAfter: loadavg() };
  writeFileSync(file, `${JSON.stringify({ generatedAt: new Date().toISOString(), machine, c1 }, null, 2)}\n`);
  log(`done; results in ${file}`);
}

const us = (value: number | null): string => (value === null ? '-' : value.toFixed(1));

/** Issue 20's c=1 figures against the undici floor, then each proxy's rounds: all its threads, and each thread name's share. */
function formatC1(c1: Record<C1Target, ThroughputResult>): string {
  const floorUs = c1.undiciFloor.cpuUsPerRequest;
  const ratio = (value: number | null): string =>
    value === null || floorUs === null ? '-' : `${(value / floorUs).toFixed(2)}x (goal <= ${MAX_CPU_RATIO_TO_FLOOR}x)`;
  const lines = [
    `proxy CPU per request, c=1, warm (after ${Math.min(c1.undiciFloor.warmupRequests, c1.airlockLogged.warmupRequests)} requests a target):` +
      ` undici floor ${us(floorUs)} us, Airlock log on ${us(c1.airlockLogged.cpuUsPerRequest)} us = ${ratio(c1.airlockLogged.cpuUsPerRequest)},` +
      ` log off ${us(c1.airlock.cpuUsPerRequest)} us = ${ratio(c1.airlock.cpuUsPerRequest)}`,
  ];
  for (const target of ['floor', 'undiciFloor', 'airlock', 'airlockLogged'] as const) {
    const result = c1[target];
    lines.push(`${target}: us a request by round ${result.roundCpuUsPerRequest.map((value) => value.toFixed(0)).join(' ')}`);
    for (const [name, rounds] of Object.entries(byThread(result.roundThreadCpuMs ?? [])))
      lines.push(`  ${name}: ${rounds.map((ms) => ((ms * 1000) / C1_RUNS.count).toFixed(0)).join(' ')}`);
  }
  return lines.join('\n');
}

/** Each thread name's CPU per round (0 in a round where it did not run). */
function byThread(rounds: readonly ThreadCpuMs[]): Record<string, number[]> {
  const names = new Set(rounds.flatMap((round) => Object.keys(round)));
  return Object.fromEntries([...names].sort().map((name) => [name, rounds.map((round) => round[name] ?? 0)]));
}
