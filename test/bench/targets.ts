import type { PhaseRss, RssPhase } from './issueTable.ts';
import type { KeyMaskingResult } from './keyMasking.ts';
import type { LargeBodyResult, OpenStreamsResult, StreamingResult, ThroughputResult } from './scenarios.ts';
import type { SmallDuringLargeResult } from './stallScenario.ts';
import type { LogSqlFloor } from './logSqlFloor.ts';
import { meanAbsoluteDifference, median, pairedRatios } from './stats.ts';

/** `floor` is the node:http pass-through, `undiciFloor` the tuned undici one. */
export type ThroughputTarget = 'direct' | 'floor' | 'undiciFloor' | 'airlock' | 'airlockLogged';
/** Here `airlock` runs as users run it: request log on, client token checked. */
export type RelayTarget = 'direct' | 'floor' | 'undiciFloor' | 'airlock';
export type ProxyTarget = 'floor' | 'undiciFloor' | 'airlock';

export interface BenchResults {
  throughputC1: Record<ThroughputTarget, ThroughputResult>;
  /** The same c=1 runs with every main thread on one core and every other thread on another (pinnedCores.ts), or why not. */
  splitCoresC1: Record<'direct' | 'undiciFloor' | 'airlock' | 'airlockLogged', ThroughputResult> | string;
  throughputC50: Record<ThroughputTarget, ThroughputResult>;
  /** The least a SQLite log of the c=1 runs' rows costs (logSqlFloor.ts), or why it was not measured. */
  logSqlFloorC1: LogSqlFloor | string;
  streaming: Record<RelayTarget, StreamingResult>;
  openStreams: Record<ProxyTarget, OpenStreamsResult>;
  largeBody: Record<RelayTarget, LargeBodyResult>;
  /** The 10 MB body's time through the undici floor that reads a body whole before sending it (undiciFloor.ts, readBodyFirst). */
  largeBodyReadFirstFloorMs: number;
  keyMasking: KeyMaskingResult;
  /** Each proxy's RSS at the end of each phase of the relay runs. */
  rssByPhase: Record<'floor' | 'undiciFloor' | 'airlockLogged', PhaseRss>;
  /** Airlock's (log on) RSS after every phase of the whole bench, in order. */
  airlockRssPhases: RssPhase[];
  stall: StallResults;
}

export interface TargetCheck {
  name: string;
  target: string;
  measured: string;
  pass: boolean;
}

/** A content delta arriving more than this much off the direct connection's spacing counts as delayed. */
export const MAX_SPACING_DEVIATION_MS = 1;
export const MAX_BYTES_PER_OPEN_STREAM = 64 * 1024;
/** Masking a chunk with no partial match must cost next to nothing beside the relay's own per-event work. */
export const MAX_CLEAN_MASKING_NS_PER_CHUNK = 1_000;

const fixed = (value: number, digits = 2): string => value.toFixed(digits);

/** Spacing of a relay's content deltas compared with the direct connection's, position by position. */
export function spacingDeviationMs(results: BenchResults, target: RelayTarget): number {
  return meanAbsoluteDifference(results.streaming[target].meanGapsMs, results.streaming.direct.meanGapsMs);
}

/**
 * A throughput share judged round by round: the median of the rounds' ratios, each between two runs
 * made one after the other. Single rounds swing by a quarter here, mostly with the machine's load
 * at the moment, which both runs of a round share; comparing two separate medians does not cancel it.
 */
export function pairedShare(a: ThroughputResult, b: ThroughputResult): { share: number; lowest: number; highest: number; rounds: number } {
  const ratios = pairedRatios(a.roundRequestsPerSecond, b.roundRequestsPerSecond);
  return { share: median(ratios), lowest: Math.min(...ratios), highest: Math.max(...ratios), rounds: ratios.length };
}

const describeShare = (paired: ReturnType<typeof pairedShare>, of: string): string =>
  `${fixed(paired.share, 3)}x ${of} (median of ${paired.rounds} paired rounds, ${fixed(paired.lowest)}-${fixed(paired.highest)})`;

/** The targets of issues 2 and 4, each with what was measured. */
export function checkTargets(results: BenchResults): TargetCheck[] {
  const c50 = results.throughputC50;
  const floorShare = pairedShare(c50.airlock, c50.floor);
  const addedP50Ms = results.throughputC1.airlock.p50Ms - results.throughputC1.direct.p50Ms;
  const addedTtfbMs = results.streaming.airlock.ttfbP50Ms - results.streaming.direct.ttfbP50Ms;
  const stream = results.streaming.airlock;
  const deviationMs = spacingDeviationMs(results, 'airlock');
  const perStream = results.openStreams.airlock.bytesPerStream;
  const body = results.largeBody.airlock;
  const peakRatio = (body.peakGrowthBytes ?? Number.NaN) / body.bodyBytes;
  const logShare = pairedShare(c50.airlockLogged, c50.airlock);
  return [
    {
      name: 'throughput c=50 vs floor',
      target: '>= 0.90x floor',
      measured: describeShare(floorShare, 'floor'),
      pass: floorShare.share >= 0.9,
    },
    { name: 'added p50 at c=1', target: '< 0.3 ms vs direct', measured: `${fixed(addedP50Ms, 3)} ms`, pass: addedP50Ms < 0.3 },
    { name: 'stream TTFB', target: 'within 2 ms of direct', measured: `${fixed(addedTtfbMs, 3)} ms`, pass: Math.abs(addedTtfbMs) <= 2 },
    {
      name: 'no chunk merged or delayed',
      target: `0 merged, 0 incomplete, spacing within ${MAX_SPACING_DEVIATION_MS} ms of direct`,
      measured: `${stream.mergedReads} merged, ${stream.incompleteStreams} incomplete, spacing off by ${fixed(deviationMs, 3)} ms`,
      pass: stream.mergedReads === 0 && stream.incompleteStreams === 0 && deviationMs <= MAX_SPACING_DEVIATION_MS,
    },
    {
      name: 'memory per open stream',
      target: '<= 64 KB',
      measured: `${fixed(perStream / 1024, 1)} KB`,
      pass: perStream <= MAX_BYTES_PER_OPEN_STREAM,
    },
    {
      name: '10 MB body',
      target: 'byte-for-byte, peak < 1.5x bytes in flight',
      measured: `${body.byteForByte ? 'byte-for-byte' : 'CHANGED'}, peak ${fixed(peakRatio)}x`,
      pass: body.byteForByte && peakRatio < 1.5,
    },
    keyMaskingCheck(results.keyMasking),
    {
      name: 'logging on vs off (c=50)',
      target: 'within 5% throughput',
      measured: describeShare(logShare, 'log off'),
      pass: logShare.share >= 0.95,
    },
  ];
}

/** The key reaches no client, and a chunk with no partial match costs next to nothing; what a stream holding the key costs is reported. */
function keyMaskingCheck(masking: KeyMaskingResult): TargetCheck {
  return {
    name: 'key masking',
    target: `no key at the client, < ${MAX_CLEAN_MASKING_NS_PER_CHUNK} ns a clean chunk`,
    measured:
      `key seen by ${masking.keySeen.airlock} Airlock and ${masking.keySeen.direct} direct streams; ${fixed(masking.perChunkNs.clean, 0)} ns a clean chunk (relay ${fixed(masking.perChunkNs.relay, 0)}), ${fixed(masking.perChunkNs.holding, 0)} holding;` +
      ` streams ${fixed(masking.plainShare, 3)}x direct plain, ${fixed(masking.keyEchoShare, 3)}x direct holding the key`,
    pass: masking.keySeen.airlock === 0 && masking.keySeen.direct > 0 && masking.perChunkNs.clean < MAX_CLEAN_MASKING_NS_PER_CHUNK,
  };
}

/** Small requests while large bodies arrive: straight to the sink, and through Airlock. */
export type StallResults = Record<'direct' | 'undiciFloor' | 'airlock', SmallDuringLargeResult>;

/**
 * No one request may hold the others up: a piece of work on the forwarding loop lasts a few ms. The
 * allowance is a major GC's pause on this shared 2-core guest (11-21 ms on a 23 MB heap), which
 * happens with small requests alone too; a body parsed on the loop held it 0.3-1 s.
 */
export const MAX_ADDED_SMALL_P99_MS = 20;
export const MAX_LOOP_STALL_MS = 20;

export function checkStall(stall: StallResults): TargetCheck[] {
  const addedP99Ms = stall.airlock.duringLarge.p99Ms - stall.direct.duringLarge.p99Ms;
  const loop = stall.airlock.loopDuringLarge;
  const loopAlone = stall.airlock.loopAlone;
  return [
    {
      name: 'small requests while large bodies arrive',
      target: `p99 within ${MAX_ADDED_SMALL_P99_MS} ms of direct`,
      measured: `p99 ${fixed(stall.airlock.duringLarge.p99Ms)} ms against ${fixed(stall.direct.duringLarge.p99Ms)} ms direct (${fixed(addedP99Ms)} ms added)`,
      pass: addedP99Ms <= MAX_ADDED_SMALL_P99_MS && stall.airlock.duringLarge.failures === 0,
    },
    {
      // CPU between turns, not the delay: on a shared machine the OS alone held the loop 100 ms.
      name: 'longest event-loop stall while large bodies arrive (CPU between turns)',
      target: `< ${MAX_LOOP_STALL_MS} ms`,
      measured:
        loop === null
          ? 'n/a'
          : `${fixed(loop.maxBusyMs, 1)} ms (${fixed(loopAlone?.maxBusyMs ?? Number.NaN, 1)} ms with small requests alone; timer delay ${fixed(loop.maxMs, 1)} ms)`,
      pass: loop !== null && loop.maxBusyMs < MAX_LOOP_STALL_MS,
    },
  ];
}
