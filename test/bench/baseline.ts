/**
 * `npm run bench -- --baseline <git-ref> [--only baseline]`: is this checkout's Airlock slower than
 * the one at <ref>? <ref> is checked out into a temporary worktree (baselineTree.ts) and its
 * Airlock started through that tree's own test/bench/proxyServer.ts, so it runs as that commit
 * wired it; this tree's runs beside it, without a client token as older trees had none. Both log
 * requests, relay to the same simulator, get the same environment and each its own tree's V8
 * flags for `airlock serve` (proxy/app/cli/v8Flags.ts); the load generator sends
 * non-streaming chat at c=1 and c=50 in paired rounds (A B B A ...), and each proxy process's CPU
 * per request (from /proc) and throughput are compared round by round (pairedRounds.ts).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { withBaselineTree, PROXY_SERVER_PATH, type BaselineTree } from './baselineTree.ts';
import { startChildServer, type ChildServer } from './childServer.ts';
import { C1_RUNS } from './benchSettings.ts';
import { createPool, runChatLoad } from './load.ts';
import { quietSpell, type Warmup } from './scenarios.ts';
import { processCpuMs, waitUntilQuiet } from './processCpu.ts';
import { threadCpuDelta, threadCpuMs, threadUsPerRequest, type ThreadCpuMs } from './threadCpu.ts';
import {
  comparePairedRuns,
  formatVerdict,
  overallVerdict,
  roundOrder,
  type PairedComparison,
  type RoundRun,
  type Side,
} from './pairedRounds.ts';
import { GLIBC_MALLOC_ENV } from '../../proxy/app/cli/glibcMalloc.ts';
import { SERVE_V8_FLAGS } from '../../proxy/app/cli/v8Flags.ts';

/** Ten rounds: HEAD counts as slower when it costs more in 8 of them (pairedRounds.ts). */
const ROUNDS = 10;
/**
 * Each run lasts this long: at c=1 a run of a few hundred requests is a few /proc ticks of CPU
 * (10 ms each), and a longer one lets the log's writing during the run, not its catching up, decide.
 */
const RUN_MS = 3_000;
const CONCURRENCIES = [1, 50] as const;
/** At c=1 both sides are measured warm, as the bench's c=1 runs are (benchSettings.ts, C1_RUNS). */
const warmupAt = (concurrency: number): Warmup => (concurrency === 1 ? C1_RUNS.warmup : { requests: 500, maxMs: 5_000 });
/**
 * What `airlock serve` sets for itself now (proxy/app/cli/glibcMalloc.ts), given to both sides:
 * the comparison is of the code, not of how the process is started.
 */
const SHARED_ENV = { ...GLIBC_MALLOC_ENV };
const V8_FLAGS_PATH = 'proxy/app/cli/v8Flags.ts';

/**
 * The V8 flags the tree's `airlock serve` starts with (proxy/app/cli/v8Flags.ts), none for a tree
 * from before it had any: each side runs as its own command would run it.
 */
async function serveV8FlagsOf(treeDir: string): Promise<readonly string[]> {
  const file = join(treeDir, V8_FLAGS_PATH);
  if (!existsSync(file)) return [];
  const module = (await import(file)) as { SERVE_V8_FLAGS?: readonly string[] };
  return module.SERVE_V8_FLAGS ?? [];
}

interface ThreadRun {
  threadCpuMs: ThreadCpuMs;
  requests: number;
}

interface PairedRuns {
  runs: Record<Side, RoundRun[]>;
  threadRuns: Record<Side, ThreadRun[]>;
}

interface Proxy {
  url: string;
  pid: number;
}

/**
 * Runs `rounds` rounds at one concurrency. Each run is charged all of its proxy's CPU since that
 * proxy's previous charge, read once the servers are quiet after the run: work a proxy does
 * later (the log's writing and indexing) or during the other side's run still lands on it.
 */
async function runPairedRounds(proxies: Record<Side, Proxy>, concurrency: number, settle: () => Promise<unknown>): Promise<PairedRuns> {
  const pools = { baseline: createPool(proxies.baseline.url, concurrency), head: createPool(proxies.head.url, concurrency) };
  const runs: Record<Side, RoundRun[]> = { baseline: [], head: [] };
  const threadRuns: Record<Side, ThreadRun[]> = { baseline: [], head: [] };
  try {
    const warmup = warmupAt(concurrency);
    // Side by side: the warm-up is not measured.
    const warmUp = (count: number): Promise<unknown> =>
      Promise.all(roundOrder(0).map((side) => runChatLoad({ pool: pools[side], concurrency, count, maxMs: warmup.maxMs })));
    await warmUp(warmup.requests);
    await quietSpell(warmup, settle);
    if ((warmup.afterQuietRequests ?? 0) > 0) {
      await warmUp(warmup.afterQuietRequests as number);
      await settle();
    }
    const chargedUpToMs = { baseline: processCpuMs(proxies.baseline.pid), head: processCpuMs(proxies.head.pid) };
    const threadsChargedUpTo = { baseline: threadCpuMs(proxies.baseline.pid), head: threadCpuMs(proxies.head.pid) };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const side of roundOrder(round)) {
        const run = await runChatLoad({ pool: pools[side], concurrency, count: Number.POSITIVE_INFINITY, maxMs: RUN_MS });
        await settle();
        const cpuNowMs = processCpuMs(proxies[side].pid);
        runs[side].push({
          cpuMs: cpuNowMs - chargedUpToMs[side],
          requests: run.latenciesMs.length,
          requestsPerSecond: run.requestsPerSecond,
          failures: run.failures,
        });
        chargedUpToMs[side] = cpuNowMs;
        const threadsNow = threadCpuMs(proxies[side].pid);
        threadRuns[side].push({ threadCpuMs: threadCpuDelta(threadsChargedUpTo[side], threadsNow), requests: run.latenciesMs.length });
        threadsChargedUpTo[side] = threadsNow;
      }
    }
  } finally {
    await Promise.all([pools.baseline.close(), pools.head.close()]);
  }
  return { runs, threadRuns };
}

/** Which threads the difference lands on: each thread name's CPU per request on both sides. */
function formatThreadSplit(threadRuns: Record<Side, readonly ThreadRun[]>): string[] {
  const baseline = threadUsPerRequest(threadRuns.baseline);
  const head = threadUsPerRequest(threadRuns.head);
  const names = [...new Set([...Object.keys(baseline), ...Object.keys(head)])].sort((a, b) => (head[b] ?? 0) - (head[a] ?? 0));
  return [
    '    per thread (us per request, baseline | HEAD | HEAD - baseline):',
    ...names.map((name) => {
      const before = baseline[name] ?? 0;
      const after = head[name] ?? 0;
      return `      ${name.padEnd(18)} ${fixed(before, 1).padStart(7)} | ${fixed(after, 1).padStart(7)} | ${fixed(after - before, 1).padStart(7)}`;
    }),
  ];
}

const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function formatComparison(comparison: PairedComparison): string[] {
  const spread = (ratio: PairedComparison['cpuRatio']): string =>
    `HEAD/baseline ${fixed(ratio.median, 3)} (middle half ${fixed(ratio.lowerQuartile, 3)}-${fixed(ratio.upperQuartile, 3)}, all ${fixed(ratio.min, 3)}-${fixed(ratio.max, 3)})`;
  const failures = (side: Side): string => (comparison[side].failures > 0 ? ` FAILURES=${comparison[side].failures}` : '');
  return [
    `  c=${comparison.concurrency}, ${comparison.rounds} rounds of ${comparison.runMs / 1000} s each`,
    `    CPU per request  baseline ${fixed(comparison.baseline.cpuUsPerRequest, 1)} us${failures('baseline')} | HEAD ${fixed(comparison.head.cpuUsPerRequest, 1)} us${failures('head')} | ${spread(comparison.cpuRatio)}`,
    `    throughput       baseline ${fixed(comparison.baseline.requestsPerSecond, 0)} req/s | HEAD ${fixed(comparison.head.requestsPerSecond, 0)} req/s | ${spread(comparison.throughputRatio)}`,
    `    verdict: ${formatVerdict(comparison.verdict)}`,
  ];
}

async function compareInTree(tree: BaselineTree, resultsDir: string, log: (line: string) => void): Promise<void> {
  const children: ChildServer[] = [];
  const start = async (script: string, args: string[], nodeFlags: readonly string[]): Promise<ChildServer> => {
    const child = await startChildServer(script, args, { env: SHARED_ENV, nodeFlags });
    children.push(child);
    return child;
  };
  // Interrupted (baselineTree.ts removes the tree and ends the process): the servers end with it.
  const stopChildren = (): void => {
    for (const child of children) process.kill(child.pid, 'SIGTERM');
  };
  process.once('SIGINT', stopChildren);
  process.once('SIGTERM', stopChildren);
  const loadBefore = loadavg();
  try {
    const upstream = await start('upstreamServer.ts', [], []);
    const airlockArgs = ['--kind', 'airlock', '--log', '--upstream', upstream.url];
    const [baseline, head] = await Promise.all([
      start(join(tree.dir, PROXY_SERVER_PATH), airlockArgs, await serveV8FlagsOf(tree.dir)),
      start('proxyServer.ts', [...airlockArgs, '--no-client-token'], SERVE_V8_FLAGS),
    ]);
    const settle = (): Promise<number> => waitUntilQuiet([upstream.pid, baseline.pid, head.pid]);
    const comparisons: PairedComparison[] = [];
    const threadSplits: string[][] = [];
    for (const concurrency of CONCURRENCIES) {
      log(`baseline ${tree.commit.slice(0, 7)} against HEAD, concurrency ${concurrency}`);
      const paired = await runPairedRounds({ baseline, head }, concurrency, settle);
      comparisons.push(comparePairedRuns(concurrency, RUN_MS, paired.runs));
      threadSplits.push(formatThreadSplit(paired.threadRuns));
    }
    const loadAfter = loadavg();
    const load = (figures: number[]): string => figures.map((figure) => figure.toFixed(2)).join(' ');
    console.log(
      [
        `HEAD against baseline ${tree.commit.slice(0, 10)}: Airlock with the request log, non-streaming chat, paired rounds (A B B A ...), proxy process CPU from /proc`,
        `  load average ${load(loadBefore)} before, ${load(loadAfter)} after, on ${availableParallelism()} cores`,
        ...comparisons.flatMap((comparison, index) => [...formatComparison(comparison), ...(threadSplits[index] ?? [])]),
        `Verdict: ${overallVerdict(comparisons)}`,
      ].join('\n'),
    );
    const report = { generatedAt: new Date().toISOString(), baselineCommit: tree.commit, loadBefore, loadAfter, comparisons };
    mkdirSync(resultsDir, { recursive: true });
    const file = join(resultsDir, 'bench-baseline.json');
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`baseline comparison in ${file}`);
  } finally {
    process.off('SIGINT', stopChildren);
    process.off('SIGTERM', stopChildren);
    await Promise.all(children.map((child) => child.stop()));
  }
}

/** Compares this checkout's Airlock with the one at `ref`, prints the figures and a verdict, and writes bench-baseline.json. */
export function compareWithBaseline(ref: string, resultsDir: string, log: (line: string) => void): Promise<void> {
  return withBaselineTree(ref, (tree) => compareInTree(tree, resultsDir, log));
}
