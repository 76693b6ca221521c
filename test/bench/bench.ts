/**
 * `npm run bench`: direct connection to the gateway simulator vs two minimal Node pass-through
 * proxies (the node:http floor and the tuned undici floor) vs Airlock, and Airlock with the request
 * log on vs off, in one run. Each server runs in its own process; this process is only the load
 * generator. Prints the tables, issue 20's figures against the undici floor with their goals, and
 * Airlock's RSS after each phase, and writes test-results/bench.json. Exits 0 on a MISS (it is a report), non-zero if something broke.
 *   npm run bench [-- [--cpu-prof] [--heap-snapshots] [--baseline <git-ref>] [--only stall|memory|baseline|session|saturation|app|c1] [--log-backlog-mib <n>]]
 * --cpu-prof: profile the Airlock process under load; --heap-snapshots: snapshots of the logged
 * Airlock's main heap after each phase of the relay runs (test-results/heap/); --only stall: only
 * small requests while large bodies arrive (test-results/bench-stall.json); --only memory: only idle
 * RSS, open streams and the 10 MB body (test-results/bench-memory.json); --only saturation: only
 * 40 s of c=50 against the logged Airlock, its RSS during and 60 s after (the log's backlog,
 * test-results/bench-saturation.json); --baseline: afterwards, Airlock at <git-ref> against this
 * checkout's, paired (baseline.ts); --only baseline: only that;
 * --only session: one 100-turn agent session's request log (sessionLog.ts), with --baseline also at <git-ref>;
 * --only app: the packaged app's memory at rest, estimated (appMemory.ts); --only c1: only the c=1 runs, CPU per thread (c1Only.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ChildServer } from './childServer.ts';
import { benchProcesses } from './benchProcesses.ts';
import { formatReport, formatStall } from './report.ts';
import { DEFAULT_QUIET, waitUntilQuiet } from './processCpu.ts';
import { measureKeyMasking } from './keyMasking.ts';
import { formatSessionLog, measureSessionLog } from './sessionScenario.ts';
import { measureLargeBody, measureOpenStreams, measureStreaming, measureThroughput, timeLargeBodies } from './scenarios.ts';
import { largeBodies, largeJsonBody } from './largeBodies.ts';
import { measureSmallDuringLarge } from './stallScenario.ts';
import { checkStall, checkTargets, type BenchResults, type ProxyTarget, type RelayTarget, type StallResults } from './targets.ts';
import { formatIssueTable, formatRssPhases, issueFigures, RSS_SETTLE_AFTER_LOAD_MS, type PhaseRss, type RssPhase } from './issueTable.ts';
import { readProcessMemory } from './processMemory.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { compareWithBaseline } from './baseline.ts';
import { saturationOnly } from './saturation.ts';
import { appMemoryOnly } from './appMemoryReport.ts';
import { c1Only } from './c1Only.ts';
import { measureOnSplitCores } from './pinnedCores.ts';
import { logSqlFloorAtC1 } from './logSqlFloor.ts';
import {
  RESULTS_DIR,
  STREAM_CHUNKS,
  STREAM_CHUNK_INTERVAL_MS,
  TRACED_STREAMS,
  OPEN_STREAMS,
  OPEN_STREAM_CHUNK_INTERVAL_MS,
  OPEN_STREAMS_FIRST_BYTE_TIMEOUT_MS,
  LARGE_BODY_BYTES,
  LARGE_BODY_TIMED_UPLOADS,
  PROFILED_MAX_BUSY_MS,
  C1_RUNS,
  EMBEDDINGS_PATH,
  C50_RUN_MS,
  MASKING_STREAM_CHUNKS,
  MASKING_CONCURRENCY,
  MASKING_RUN_MS,
  MASKING_ROUNDS,
  LARGE_BODY_ROUNDS,
} from './benchSettings.ts';

const { values } = parseArgs({
  options: {
    'cpu-prof': { type: 'boolean', default: false },
    'heap-snapshots': { type: 'boolean', default: false },
    only: { type: 'string' },
    baseline: { type: 'string' },
    'log-backlog-mib': { type: 'string' },
  },
});
if (values.only !== undefined && !['stall', 'memory', 'baseline', 'session', 'saturation', 'app', 'c1'].includes(values.only))
  throw new Error('--only takes one scenario: stall, memory, baseline, session, saturation, app or c1');
if (values.only === 'baseline' && values.baseline === undefined)
  throw new Error('--only baseline needs --baseline <git-ref>, e.g. c7ee941');
/** --log-backlog-mib <n>: the logged Airlock's log backlog limit (the logBacklogMiB setting), to see its folding under load. */
const backlogArgs = values['log-backlog-mib'] === undefined ? [] : ['--log-backlog-mib', values['log-backlog-mib']];
const airlockNodeFlags = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(RESULTS_DIR, 'cpu-prof')}`] : [];

const PROXY_KINDS = [
  ['floor', 'floor'],
  ['undiciFloor', 'undici-floor'],
  ['airlock', 'airlock'],
] as const satisfies readonly (readonly [ProxyTarget, string])[];

const { start, stop, startProxy, stopAll } = benchProcesses(backlogArgs, airlockNodeFlags);

/** Airlock's RSS (log on) after each phase of the bench, for the report. */
const airlockRssPhases: RssPhase[] = [];
/**
 * Notes the logged Airlock's RSS after a phase of the relay runs, with its main thread's heap; with
 * --heap-snapshots, also writes a snapshot of that heap (which forces a collection and leaves the
 * snapshot's own native memory behind: figures after the first one are not comparable).
 */
async function noteAirlockRss(phase: string, server: ChildServer): Promise<void> {
  const { rssBytes: bytes, anonBytes, fileBytes } = readProcessMemory(server.pid);
  const heap = await server.memoryUsage();
  airlockRssPhases.push({ phase, bytes, split: { anonBytes, fileBytes }, heapUsedBytes: heap.heapUsed, heapTotalBytes: heap.heapTotal });
  if (!values['heap-snapshots']) return;
  mkdirSync(resolve(RESULTS_DIR, 'heap'), { recursive: true });
  await server.heapSnapshot(resolve(RESULTS_DIR, 'heap', `${airlockRssPhases.length}-${phase.replace(/\W+/g, '-')}.heapsnapshot`));
}

type RelayResults = Pick<BenchResults, 'throughputC1' | 'logSqlFloorC1' | 'throughputC50' | 'streaming' | 'rssByPhase'>;

/**
 * Non-streamed chat at c=1 and c=50, then streams, through every relay. The proxies' processes are
 * left running, idle, for the RSS read RSS_SETTLE_AFTER_LOAD_MS after the load: `finish` (called
 * after the masking runs, which use other processes) waits out the rest of that time, reads it and
 * stops them.
 */
async function measureRelays(log: (line: string) => void): Promise<{ finish(): Promise<RelayResults> }> {
  const simulator = await start('upstreamServer.ts', [
    '--chunk-count',
    String(STREAM_CHUNKS),
    '--chunk-interval-ms',
    String(STREAM_CHUNK_INTERVAL_MS),
  ]);
  const logDir = mkdtempSync(join(tmpdir(), 'airlock-bench-log-'));
  const [floor, undiciFloor, airlock, airlockLogged] = await Promise.all([
    startProxy('floor', simulator.url),
    startProxy('undici-floor', simulator.url),
    startProxy('airlock', simulator.url),
    startProxy('airlock', simulator.url, { log: true, logDir }),
  ]);
  const servers = { direct: simulator, floor, undiciFloor, airlock, airlockLogged };
  const each = <V>(read: (server: ChildServer) => V) =>
    Object.fromEntries(Object.entries(servers).map(([target, server]) => [target, read(server)])) as Record<keyof typeof servers, V>;
  const urls = each((server) => server.url);
  const pids = each((server) => server.pid);
  const watched = { floor, undiciFloor, airlockLogged };
  const rss = (): Record<keyof typeof watched, number> => ({
    floor: readProcessMemory(floor.pid).rssBytes,
    undiciFloor: readProcessMemory(undiciFloor.pid).rssBytes,
    airlockLogged: readProcessMemory(airlockLogged.pid).rssBytes,
  });
  // A profiler samples all the time: quiet then means little more than its own overhead.
  const quiet = values['cpu-prof'] ? { ...DEFAULT_QUIET, maxBusyMs: PROFILED_MAX_BUSY_MS } : DEFAULT_QUIET;
  const settle = (): Promise<number> => waitUntilQuiet(Object.values(pids), quiet);
  await settle();
  const idle = rss();
  await noteAirlockRss('idle, after start', airlockLogged);
  log('non-streaming, concurrency 1');
  const throughputC1 = await measureThroughput(urls, { ...C1_RUNS, settle, pids });
  const afterC1 = rss();
  await noteAirlockRss('after the c=1 runs', airlockLogged);
  // Before the c=50 runs add theirs: the log then holds the c=1 runs' rows only.
  await airlockLogged.flushLog();
  const logSqlFloorC1 = logSqlFloorAtC1(logDir, throughputC1.airlockLogged.requestsPerSecond);
  log('non-streaming, concurrency 50');
  const throughputC50 = await measureThroughput(urls, {
    concurrency: 50,
    count: Number.POSITIVE_INFINITY,
    rounds: 9,
    maxMs: C50_RUN_MS,
    settle,
    pids,
  });
  const afterC50 = rss();
  await noteAirlockRss('after the c=50 runs', airlockLogged);
  log('streams');
  // The logged proxy indexes its backlog after the last round: chunk timing must not share the CPU with it.
  await settle();
  const streaming = {
    direct: await measureStreaming(urls.direct, TRACED_STREAMS, STREAM_CHUNKS),
    floor: await measureStreaming(urls.floor, TRACED_STREAMS, STREAM_CHUNKS),
    undiciFloor: await measureStreaming(urls.undiciFloor, TRACED_STREAMS, STREAM_CHUNKS),
    airlock: await measureStreaming(urls.airlockLogged, TRACED_STREAMS, STREAM_CHUNKS),
  };
  const afterStreams = rss();
  await noteAirlockRss('after the streams', airlockLogged);
  const loadEndedAt = Date.now();
  await stop(servers.direct, airlock);
  return {
    async finish() {
      await delay(Math.max(0, loadEndedAt + RSS_SETTLE_AFTER_LOAD_MS - Date.now()));
      const afterQuiet = rss();
      await noteAirlockRss(`${RSS_SETTLE_AFTER_LOAD_MS / 1000} s after the last request`, airlockLogged);
      await stop(floor, undiciFloor, airlockLogged);
      rmSync(logDir, { recursive: true, force: true });
      const phases = (target: keyof typeof watched): PhaseRss => ({
        idleBytes: idle[target],
        afterC1Bytes: afterC1[target],
        afterC50Bytes: afterC50[target],
        afterStreamsBytes: afterStreams[target],
        afterQuietBytes: afterQuiet[target],
      });
      return {
        throughputC1,
        logSqlFloorC1,
        throughputC50,
        streaming,
        rssByPhase: { floor: phases('floor'), undiciFloor: phases('undiciFloor'), airlockLogged: phases('airlockLogged') },
      };
    },
  };
}

/**
 * The c=1 runs again with every process's background threads on cores of their own
 * (pinnedCores.ts), through processes of their own, so that no judged figure runs on a log they
 * lengthened or in the minute after them.
 */
async function measureSplitCores(log: (line: string) => void): Promise<Pick<BenchResults, 'splitCoresC1'>> {
  log('non-streaming, concurrency 1, background threads on cores of their own');
  const simulator = await start('upstreamServer.ts', []);
  const [undiciFloor, airlock, airlockLogged] = await Promise.all([
    startProxy('undici-floor', simulator.url),
    startProxy('airlock', simulator.url),
    startProxy('airlock', simulator.url, { log: true }),
  ]);
  const servers = [simulator, undiciFloor, airlock, airlockLogged];
  const urls = { direct: simulator.url, undiciFloor: undiciFloor.url, airlock: airlock.url, airlockLogged: airlockLogged.url };
  const settle = (): Promise<number> => waitUntilQuiet(servers.map((server) => server.pid));
  const runs = (settleAndSplit: () => Promise<void>) => measureThroughput(urls, { ...C1_RUNS, settle: settleAndSplit });
  const splitCoresC1 = await measureOnSplitCores(runs, [process.pid, ...servers.map((server) => server.pid)], settle);
  await stop(...servers);
  return { splitCoresC1 };
}

async function measureMasking(log: (line: string) => void): Promise<Pick<BenchResults, 'keyMasking'>> {
  log('streams that echo the key, and plain ones');
  const simulator = await start('upstreamServer.ts', ['--chunk-count', String(MASKING_STREAM_CHUNKS), '--chunk-interval-ms', '0']);
  const airlock = await startProxy('airlock', simulator.url);
  const settle = (): Promise<number> => waitUntilQuiet([simulator.pid, airlock.pid]);
  const keyMasking = await measureKeyMasking(
    { direct: simulator.url, airlock: airlock.url },
    { concurrency: MASKING_CONCURRENCY, rounds: MASKING_ROUNDS, maxMs: MASKING_RUN_MS, settle },
  );
  await stop(airlock, simulator);
  return { keyMasking };
}

async function measureMemory(
  log: (line: string) => void,
): Promise<Pick<BenchResults, 'openStreams' | 'largeBody' | 'largeBodyReadFirstFloorMs'>> {
  log(`${OPEN_STREAMS} open streams`);
  const slowSimulator = await start('upstreamServer.ts', [
    '--chunk-count',
    String(STREAM_CHUNKS),
    '--chunk-interval-ms',
    String(OPEN_STREAM_CHUNK_INTERVAL_MS),
  ]);
  const openStreams = {} as BenchResults['openStreams'];
  for (const [target, kind] of PROXY_KINDS) {
    const proxy = await startProxy(kind, slowSimulator.url, { exactRss: true, log: kind === 'airlock' });
    openStreams[target] = await measureOpenStreams(proxy, OPEN_STREAMS, OPEN_STREAMS_FIRST_BYTE_TIMEOUT_MS);
    if (kind === 'airlock') {
      airlockRssPhases.push({ phase: `${OPEN_STREAMS} open streams (own process, after a GC)`, bytes: openStreams[target].rssDuringBytes });
      airlockRssPhases.push({ phase: 'after they ended (after a GC)', bytes: openStreams[target].rssAfterBytes });
    }
    await stop(proxy);
  }
  await stop(slowSimulator);

  log('10 MB request body');
  const sink = await start('upstreamServer.ts', ['--kind', 'sink']);
  const body = largeJsonBody(LARGE_BODY_BYTES);
  const largeBody = { direct: await measureLargeBody(sink.url, body, EMBEDDINGS_PATH) } as BenchResults['largeBody'];
  for (const [target, kind] of PROXY_KINDS) {
    const proxy = await startProxy(kind, sink.url, { exactRss: true, log: kind === 'airlock' });
    largeBody[target] = await measureLargeBody(proxy, body, EMBEDDINGS_PATH);
    if (kind === 'airlock')
      airlockRssPhases.push({ phase: '10 MB body, 0.3 s after (own process)', bytes: largeBody[target].rssAfterBytes ?? Number.NaN });
    await stop(proxy);
  }
  // Its time: every target at once, uploads alternated, so the floor and Airlock meet the same moments; beside
  // them the undici floor reading each body whole before sending it, as Airlock must: what store-and-forward costs.
  const kinds = [...PROXY_KINDS, ['readFirstFloor', 'undici-floor-read-first']] as const;
  const proxies = await Promise.all(kinds.map(([, kind]) => startProxy(kind, sink.url, { log: kind === 'airlock' })));
  const urls = { direct: sink.url, ...Object.fromEntries(kinds.map(([target], index) => [target, proxies[index]!.url])) };
  const timed = await timeLargeBodies(
    urls as Record<RelayTarget | 'readFirstFloor', string>,
    body,
    EMBEDDINGS_PATH,
    LARGE_BODY_TIMED_UPLOADS,
  );
  for (const target of Object.keys(largeBody) as RelayTarget[]) largeBody[target] = { ...largeBody[target], elapsedMs: timed[target] };
  await stop(...proxies, sink);
  return { openStreams, largeBody, largeBodyReadFirstFloorMs: timed.readFirstFloor };
}

/** Small requests while large and pathological bodies arrive: straight to the sink, through the undici floor, then through Airlock (log on). */
async function measureStall(log: (line: string) => void): Promise<StallResults> {
  log('small requests while large bodies arrive');
  const sink = await start('upstreamServer.ts', ['--kind', 'sink']);
  const bodies = largeBodies();
  const direct = await measureSmallDuringLarge(sink.url, bodies, LARGE_BODY_ROUNDS);
  // The undici floor's loop under the same load: what any Node proxy's loop shows on this machine.
  const floor = await startProxy('undici-floor', sink.url);
  const undiciFloor = await measureSmallDuringLarge(floor, bodies, LARGE_BODY_ROUNDS);
  await stop(floor);
  const proxy = await startProxy('airlock', sink.url, { log: true });
  const airlock = await measureSmallDuringLarge(proxy, bodies, LARGE_BODY_ROUNDS);
  await noteAirlockRss('after the large bodies (own process)', proxy);
  // As after the c=50 load: past the reclaimers' 30 s idle wait and the translation thread's.
  await delay(RSS_SETTLE_AFTER_LOAD_MS);
  await noteAirlockRss(`${RSS_SETTLE_AFTER_LOAD_MS / 1000} s later`, proxy);
  await stop(proxy, sink);
  return { direct, undiciFloor, airlock };
}

/** Idle RSS of the undici floor and the logged Airlock (started side by side, read once all are quiet), then measureMemory's figures. */
async function memoryOnly(log: (line: string) => void): Promise<void> {
  log('idle RSS');
  const simulator = await start('upstreamServer.ts', []);
  const relays = await Promise.all([startProxy('undici-floor', simulator.url), startProxy('airlock', simulator.url, { log: true })]);
  await waitUntilQuiet([simulator.pid, ...relays.map((relay) => relay.pid)]);
  const [floorIdleBytes, airlockIdleBytes] = relays.map((relay) => readProcessMemory(relay.pid).rssBytes) as [number, number];
  await stop(...relays, simulator);
  const { openStreams, largeBody, largeBodyReadFirstFloorMs } = await measureMemory(log);
  const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const kb = (target: keyof typeof openStreams): string => `${(openStreams[target].bytesPerStream / 1024).toFixed(1)} KB`;
  console.log(`RSS idle: undici floor ${mb(floorIdleBytes)}, Airlock (log on) ${mb(airlockIdleBytes)}`);
  console.log(
    `RSS per open stream (${OPEN_STREAMS} open): floor ${kb('floor')}, undici floor ${kb('undiciFloor')}, Airlock ${kb('airlock')}`,
  );
  console.log(
    `10 MB body: undici floor ${largeBody.undiciFloor.elapsedMs.toFixed(0)} ms (reading it whole first ${largeBodyReadFirstFloorMs.toFixed(0)} ms), Airlock ${largeBody.airlock.elapsedMs.toFixed(0)} ms`,
  );
  const file = resolve(RESULTS_DIR, 'bench-memory.json');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const figures = { floorIdleBytes, airlockIdleBytes, openStreams, largeBody, largeBodyReadFirstFloorMs };
  writeFileSync(file, `${JSON.stringify({ generatedAt: new Date().toISOString(), ...figures }, null, 2)}\n`);
  log(`done; results in ${file}`);
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const log = (line: string): void => console.error(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1)} s] ${line}`);
  const loadBefore = loadavg();
  if (values.only === 'baseline') return compareWithBaseline(values.baseline as string, RESULTS_DIR, log);
  if (values.only === 'session') {
    console.log(formatSessionLog(await measureSessionLog(values.baseline, log)));
    return;
  }
  if (values.only === 'saturation') return saturationOnly({ start, stop, startProxy, stopAll }, log);
  if (values.only === 'app') return appMemoryOnly(log);
  // Fills Node's compile cache (keyed by V8 flags) as any earlier `airlock serve` did: a miss loads the type stripper, +11-19 MB.
  const warmUp = (exactRss: boolean): Promise<ChildServer> => startProxy('airlock', 'http://127.0.0.1:9', { log: true, exactRss });
  if (values.only !== 'stall') await stop(...(await Promise.all([warmUp(false), warmUp(true)])));
  if (values.only === 'memory') return memoryOnly(log);
  if (values.only === 'c1') return c1Only({ start, stop, startProxy, stopAll }, log);
  let results: Partial<BenchResults> = {};
  if (values.only === undefined) {
    const relays = await measureRelays(log);
    const masking = await measureMasking(log);
    log(`idle proxies until ${RSS_SETTLE_AFTER_LOAD_MS / 1000} s after the load`);
    results = { ...(await relays.finish()), ...masking, ...(await measureMemory(log)), ...(await measureSplitCores(log)) };
  }
  const stall = await measureStall(log);
  results = { ...results, stall, airlockRssPhases };
  const checks = values.only === 'stall' ? [] : checkTargets(results as BenchResults);
  const stallChecks = checkStall(stall);
  if (values.only !== 'stall') console.log(formatReport(results as BenchResults, checks));
  console.log(formatStall(stall, stallChecks));
  if (values.only !== 'stall') console.log(formatIssueTable(issueFigures(results as BenchResults)));
  console.log(formatRssPhases(airlockRssPhases));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const machine = { cpus: availableParallelism(), node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: loadavg() };
  const report = {
    generatedAt: new Date().toISOString(),
    durationMs: Date.now() - startedAt,
    machine,
    results,
    checks: [...checks, ...stallChecks],
  };
  const file = resolve(RESULTS_DIR, values.only === 'stall' ? 'bench-stall.json' : 'bench.json');
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`done; results in ${file}`);
  if (values.baseline !== undefined) await compareWithBaseline(values.baseline, RESULTS_DIR, log);
}

try {
  await main();
} catch (error) {
  console.error('[bench] failed:', error);
  process.exitCode = 1;
} finally {
  await stopAll();
}
