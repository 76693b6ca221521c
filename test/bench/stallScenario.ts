import { performance } from 'node:perf_hooks';
import type { ChildServer, EventLoopDelay } from './childServer.ts';
import type { LargeBody } from './largeBodies.ts';
import { CHAT_BODY, CHAT_PATH, CLIENT_HEADERS, createPool, runChatLoad } from './load.ts';
import { percentile, summarizeLatencies, type LatencySummary } from './stats.ts';

export interface SmallDuringLargeResult {
  /** Small requests while nothing else arrives: the machine's own spread. */
  alone: LatencySummary & { maxMs: number };
  /** Small requests while the large bodies arrive, one after another. */
  duringLarge: LatencySummary & { maxMs: number; failures: number };
  /** Each large body's answer status, in order (a refusal is a 4xx). */
  largeStatuses: { label: string; status: number; errorText?: string }[];
  /** The proxy's event loop (null for a direct connection): alone, then during the large bodies. */
  loopAlone: EventLoopDelay | null;
  loopDuringLarge: EventLoopDelay | null;
}

const SMALL_CONCURRENCY = 4;
const ERROR_TEXT_CHARS = 400;
const ALONE_MS = 2_000;
/** Not measured: the proxy's code is compiled and its pools open before the figures start. */
const WARMUP_REQUESTS = 500;

interface SmallLoad {
  stop(): Promise<{ latenciesMs: number[]; failures: number }>;
}

/** Small chat requests, SMALL_CONCURRENCY at a time, until stopped. */
function startSmallLoad(url: string): SmallLoad {
  const pool = createPool(url, SMALL_CONCURRENCY);
  const latenciesMs: number[] = [];
  let failures = 0;
  let running = true;
  const worker = async (): Promise<void> => {
    while (running) {
      const startedAt = performance.now();
      try {
        const response = await pool.request({ method: 'POST', path: CHAT_PATH, headers: CLIENT_HEADERS, body: CHAT_BODY });
        await response.body.arrayBuffer();
        if (response.statusCode === 200) latenciesMs.push(performance.now() - startedAt);
        else failures += 1;
      } catch {
        failures += 1;
      }
    }
  };
  const workers = Promise.all(Array.from({ length: SMALL_CONCURRENCY }, worker));
  return {
    async stop() {
      running = false;
      await workers;
      await pool.close();
      return { latenciesMs, failures };
    },
  };
}

const withMax = (latenciesMs: number[]): LatencySummary & { maxMs: number } => ({
  ...summarizeLatencies(latenciesMs),
  maxMs: percentile(latenciesMs, 1),
});

/**
 * p99 of small requests while large and pathological bodies arrive, sent straight to the sink
 * (`via` a URL) or through a proxy process, whose event loop is watched meanwhile. The sink hashes
 * bodies without parsing them, so what slows the small requests is the transfer, the machine, and
 * whatever the proxy does with each body.
 */
export async function measureSmallDuringLarge(
  via: string | ChildServer,
  bodies: readonly LargeBody[],
  rounds: number,
): Promise<SmallDuringLargeResult> {
  const url = typeof via === 'string' ? via : via.url;
  const proxy = typeof via === 'string' ? null : via;
  const warmup = createPool(url, SMALL_CONCURRENCY);
  await runChatLoad({ pool: warmup, concurrency: SMALL_CONCURRENCY, count: WARMUP_REQUESTS, maxMs: 10_000 });
  await warmup.close();
  const alone = startSmallLoad(url);
  await proxy?.eventLoop('watch');
  await new Promise((resolve) => setTimeout(resolve, ALONE_MS));
  const loopAlone = (await proxy?.eventLoop('read')) ?? null;
  const aloneRun = await alone.stop();

  const during = startSmallLoad(url);
  const large = createPool(url, 1);
  const largeStatuses: SmallDuringLargeResult['largeStatuses'] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const { label, path, body } of bodies) {
        const response = await large.request({
          method: 'POST',
          path,
          headers: { ...CLIENT_HEADERS, 'anthropic-version': '2023-06-01' },
          body,
        });
        const answer = await response.body.text();
        // A 5xx here is Airlock's or the upstream's failure, not a refusal the body earned: keep what it said.
        largeStatuses.push({
          label,
          status: response.statusCode,
          ...(response.statusCode >= 500 ? { errorText: answer.slice(0, ERROR_TEXT_CHARS) } : {}),
        });
      }
    }
  } finally {
    await large.close();
  }
  const loopDuringLarge = (await proxy?.eventLoop('unwatch')) ?? null;
  const duringRun = await during.stop();
  return {
    alone: withMax(aloneRun.latenciesMs),
    duringLarge: { ...withMax(duringRun.latenciesMs), failures: duringRun.failures },
    largeStatuses,
    loopAlone,
    loopDuringLarge,
  };
}
