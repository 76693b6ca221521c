import type { BenchResults, RelayTarget, StallResults, TargetCheck, ThroughputTarget } from './targets.ts';
import { spacingDeviationMs } from './targets.ts';

const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mib = (bytes: number): string => `${fixed(bytes / (1024 * 1024), 1)} MiB`;
const kib = (bytes: number): string => `${fixed(bytes / 1024, 1)} KB`;

/** `value` with its ratio to direct and to the floor, where those exist. */
function withRatios(value: number, unit: string, direct: number | null, floor: number | null, digits = 2): string {
  const ratios: string[] = [];
  if (direct !== null) ratios.push(`${fixed(value / direct)}x direct`);
  if (floor !== null) ratios.push(`${fixed(value / floor)}x floor`);
  return `${fixed(value, digits)} ${unit}${ratios.length > 0 ? ` = ${ratios.join(', ')}` : ''}`;
}

const THROUGHPUT_LABELS: Record<ThroughputTarget, string> = {
  direct: 'direct',
  floor: 'node floor',
  undiciFloor: 'undici floor',
  airlock: 'airlock',
  airlockLogged: 'airlock+log',
};
const RELAY_TARGETS: RelayTarget[] = ['direct', 'floor', 'undiciFloor', 'airlock'];

function throughputLines(title: string, results: BenchResults['throughputC1']): string[] {
  const lines = [title];
  for (const target of Object.keys(THROUGHPUT_LABELS) as ThroughputTarget[]) {
    const run = results[target];
    const direct = target === 'direct' ? null : results.direct;
    const floor = target === 'direct' || target === 'floor' || target === 'undiciFloor' ? null : results.floor;
    const cpu = run.cpuUsPerRequest === null ? '' : ` | CPU ${fixed(run.cpuUsPerRequest, 1)} us/req`;
    lines.push(
      `  ${THROUGHPUT_LABELS[target].padEnd(12)} ${withRatios(run.requestsPerSecond, 'req/s', direct?.requestsPerSecond ?? null, floor?.requestsPerSecond ?? null, 0)}` +
        ` | p50 ${withRatios(run.p50Ms, 'ms', direct?.p50Ms ?? null, floor?.p50Ms ?? null, 3)}` +
        ` | p99 ${withRatios(run.p99Ms, 'ms', direct?.p99Ms ?? null, floor?.p99Ms ?? null, 3)}` +
        `${cpu} | n=${run.count}${run.failures > 0 ? ` FAILURES=${run.failures}` : ''}`,
    );
  }
  return lines;
}

export function formatReport(results: BenchResults, checks: readonly TargetCheck[]): string {
  const lines = [
    ...throughputLines(
      `Non-streaming chat, concurrency 1, warm: after ${Math.min(...Object.values(results.throughputC1).map((run) => run.warmupRequests))} requests a target (each target's median run)`,
      results.throughputC1,
    ),
    ...throughputLines(
      "Non-streaming chat, concurrency 50 (each target's median run; the targets below compare round by round)",
      results.throughputC50,
    ),
    'Stream (content deltas 10 ms apart), one at a time',
  ];
  for (const target of RELAY_TARGETS) {
    const stream = results.streaming[target];
    const direct = target === 'direct' ? null : results.streaming.direct.ttfbP50Ms;
    const floor = target === 'airlock' ? results.streaming.floor.ttfbP50Ms : null;
    const ttft = ` | TTFT p50 ${fixed(stream.ttftP50Ms, 3)} ms`;
    const spacing = target === 'direct' ? '' : ` | spacing off direct by ${fixed(spacingDeviationMs(results, target), 3)} ms`;
    lines.push(
      `  ${target.padEnd(12)} TTFB p50 ${withRatios(stream.ttfbP50Ms, 'ms', direct, floor, 3)}${ttft}${spacing}` +
        ` | merged reads ${stream.mergedReads} | incomplete ${stream.incompleteStreams}/${stream.streams}`,
    );
  }
  const floorStreams = results.openStreams.floor;
  lines.push(`Open streams (${floorStreams.openStreams} at once), proxy RSS growth per stream`);
  for (const target of ['floor', 'undiciFloor', 'airlock'] as const) {
    const open = results.openStreams[target];
    const perStream =
      target === 'floor'
        ? kib(open.bytesPerStream)
        : withRatios(open.bytesPerStream / 1024, 'KB', null, floorStreams.bytesPerStream / 1024, 1);
    lines.push(
      `  ${target.padEnd(12)} ${perStream} (RSS ${mib(open.rssBeforeBytes)} -> ${mib(open.rssDuringBytes)}, after ${mib(open.rssAfterBytes)})`,
    );
  }
  lines.push(`Request body of ${mib(results.largeBody.airlock.bodyBytes)}`);
  for (const target of RELAY_TARGETS) {
    const body = results.largeBody[target];
    const direct = target === 'direct' ? null : results.largeBody.direct.elapsedMs;
    const floor = target === 'airlock' ? results.largeBody.floor.elapsedMs : null;
    const peak =
      body.peakGrowthBytes === null
        ? ''
        : ` | peak RSS growth ${mib(body.peakGrowthBytes)} = ${fixed(body.peakGrowthBytes / body.bodyBytes)}x bytes in flight`;
    lines.push(
      `  ${target.padEnd(12)} ${withRatios(body.elapsedMs, 'ms', direct, floor, 1)} | ${body.byteForByte ? 'byte-for-byte' : 'BODY CHANGED'}${peak}`,
    );
  }
  const masking = results.keyMasking;
  lines.push(
    `Streams back to back, concurrency ${masking.concurrency} (every relayed stream is masked; key echo: the model repeats the key 2-3 characters a delta)`,
    `  plain        direct ${fixed(masking.plain.direct, 0)} streams/s | airlock ${fixed(masking.plain.airlock, 0)} streams/s = ${fixed(masking.plainShare)}x direct (paired)`,
    `  key echo     direct ${fixed(masking.keyEcho.direct, 0)} streams/s | airlock ${fixed(masking.keyEcho.airlock, 0)} streams/s = ${fixed(masking.keyEchoShare)}x direct (paired)`,
    `  masking adds per upstream chunk (CPU, in-process): ${fixed(masking.perChunkNs.clean, 0)} ns with no partial match, ${fixed(masking.perChunkNs.plain, 0)} ns on English text,` +
      ` ${fixed(masking.perChunkNs.holding, 0)} ns on the key in pieces; the relay's own work is ${fixed(masking.perChunkNs.relay, 0)} ns`,
  );
  lines.push('Targets (issues 2 and 4)');
  for (const check of checks) lines.push(`  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.measured} (target ${check.target})`);
  return lines.join('\n');
}

/** Small requests while large bodies arrive, and what Airlock's event loop did meanwhile. */
export function formatStall(stall: StallResults, checks: readonly TargetCheck[]): string {
  const statuses = stall.airlock.largeStatuses;
  const lines = [`Small chat requests (4 at a time) while ${statuses.length} large bodies arrive one after another`];
  for (const target of ['direct', 'undiciFloor', 'airlock'] as const) {
    const run = stall[target];
    const during = run.duringLarge;
    const loop =
      run.loopDuringLarge === null
        ? ''
        : ` | loop: longest CPU stretch ${fixed(run.loopDuringLarge.maxBusyMs, 1)} ms, delay max ${fixed(run.loopDuringLarge.maxMs, 1)} ms` +
          ` (waited for a core ${fixed(run.loopDuringLarge.longestGapCoreWaitMs ?? Number.NaN, 1)} ms of the longest gap;` +
          ` own delay max ${fixed(run.loopDuringLarge.maxOwnDelayMs ?? Number.NaN, 1)} ms,` +
          ` of it asleep on a lock or V8's helper threads ${fixed(run.loopDuringLarge.longestOwnDelayAsleepMs ?? Number.NaN, 1)} ms)` +
          ` (alone ${fixed(run.loopAlone?.maxBusyMs ?? Number.NaN, 1)} / ${fixed(run.loopAlone?.maxMs ?? Number.NaN, 1)} ms)`;
    lines.push(
      `  ${target.padEnd(12)} p50 ${fixed(during.p50Ms, 2)} ms | p99 ${withRatios(during.p99Ms, 'ms', target === 'direct' ? null : stall.direct.duringLarge.p99Ms, null, 2)}` +
        ` | max ${fixed(during.maxMs, 1)} ms | n=${during.count}${during.failures > 0 ? ` FAILURES=${during.failures}` : ''}` +
        ` | alone: p99 ${fixed(run.alone.p99Ms, 2)} ms${loop}`,
    );
  }
  const seen = new Map<string, number[]>();
  for (const { label, status } of statuses) seen.set(label, [...(seen.get(label) ?? []), status]);
  lines.push(`  large bodies through Airlock: ${[...seen].map(([label, each]) => `${label} -> ${each.join(', ')}`).join('; ')}`);
  for (const { label, status, errorText } of statuses)
    if (errorText !== undefined) lines.push(`  ${label} answered ${status}: ${errorText}`);
  for (const check of checks) lines.push(`  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.measured} (target ${check.target})`);
  return lines.join('\n');
}
