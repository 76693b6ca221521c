/**
 * Issue 20's table: each figure for the tuned undici floor and for Airlock as users run it (request
 * log on, client token checked), measured in the same run, with its goal and PASS/MISS. Pure: it
 * only reads the bench's results.
 */
import type { EventLoopDelay } from './childServer.ts';
import type { BenchResults } from './targets.ts';

export interface IssueFigure {
  name: string;
  goal: string;
  floor: string;
  airlock: string;
  pass: boolean;
}

/** Memory of one proxy process read at the end of each phase of the relay runs. */
export interface PhaseRss {
  idleBytes: number;
  afterC1Bytes: number;
  afterC50Bytes: number;
  afterStreamsBytes: number;
  /** RSS_SETTLE_AFTER_LOAD_MS after the last request of the relay runs. */
  afterQuietBytes: number;
}

export const MAX_CPU_RATIO_TO_FLOOR = 1.5;
export const MAX_ADDED_P99_C1_MS = 2;
export const MAX_ADDED_TTFT_MS = 1;
export const MAX_RSS_ABOVE_IDLE_RATIO = 1.1;
export const MAX_LARGE_BODY_RATIO_TO_FLOOR = 1.5;
export const MAX_IDLE_RSS_BYTES = 100 * 1024 * 1024;
export const MAX_BYTES_PER_STREAM = 48 * 1024;
export const MAX_EVENT_LOOP_STALL_MS = 10;
export const RSS_SETTLE_AFTER_LOAD_MS = 60_000;

const fixed = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
/** The delay less the time the loop's thread waited for a core (schedstat); 'n/a' off Linux. */
const ownDelay = (loop: EventLoopDelay): string =>
  loop.maxOwnDelayMs === null
    ? 'n/a'
    : `${fixed(loop.maxOwnDelayMs)} ms (of it asleep on a lock or V8's helper threads ${fixed(loop.longestOwnDelayAsleepMs ?? Number.NaN)} ms;` +
      ` the longest gap waited ${fixed(loop.longestGapCoreWaitMs ?? Number.NaN)} ms for a core)`;
const loopFigure = (loop: EventLoopDelay | null): string =>
  loop === null
    ? 'n/a'
    : `${fixed(loop.maxMs)} ms delay (monitorEventLoopDelay); held by the loop itself ${ownDelay(loop)}, ${fixed(loop.maxBusyMs)} ms CPU between turns`;
const mb = (bytes: number): string => `${fixed(bytes / (1024 * 1024))} MB`;

/** `value / floor` and whether it is within `maxRatio`; a figure that could not be measured misses. */
export function judgeRatio(value: number | null, floor: number | null, maxRatio: number): { ratio: number; pass: boolean } {
  if (value === null || floor === null || !(floor > 0)) return { ratio: Number.NaN, pass: false };
  const ratio = value / floor;
  return { ratio, pass: ratio <= maxRatio };
}

/** Whether a value is measured and at most `limit`. */
export function judgeAtMost(value: number | null, limit: number): boolean {
  return value !== null && Number.isFinite(value) && value <= limit;
}

function ratioFigure(name: string, unit: string, floor: number | null, airlock: number | null, maxRatio: number): IssueFigure {
  const { ratio, pass } = judgeRatio(airlock, floor, maxRatio);
  return {
    name,
    goal: `<= ${maxRatio}x the floor`,
    floor: `${fixed(floor ?? Number.NaN)} ${unit}`,
    airlock: `${fixed(airlock ?? Number.NaN)} ${unit} = ${fixed(ratio, 2)}x`,
    pass,
  };
}

/** The added p99 of the same c=1 runs with the background threads on cores of their own (for Airlock, log on, then off); not judged. */
function splitCoresNote(results: BenchResults, target: 'undiciFloor' | 'airlockLogged'): string {
  const split = results.splitCoresC1;
  if (typeof split === 'string') return `; background threads on cores of their own: not measured, ${split}`;
  const added = (run: 'undiciFloor' | 'airlock' | 'airlockLogged'): string => `${fixed(split[run].p99Ms - split.direct.p99Ms, 2)} ms`;
  return `; background threads on cores of their own ${added(target)}${target === 'airlockLogged' ? ` (log off ${added('airlock')})` : ''}`;
}

/**
 * Beside the c=1 CPU figure: the log off, and the least a SQLite log of the same rows costs
 * (logSqlFloor.ts) added to it, against the floor. Over the goal, no SQLite log of these rows can
 * meet it; under, the rest of the log's cost is its own work around the SQL.
 */
function withLogSqlFloor(figure: IssueFigure, results: BenchResults): IssueFigure {
  const { throughputC1: c1, logSqlFloorC1: sql } = results;
  const floor = c1.undiciFloor.cpuUsPerRequest;
  const logOff = c1.airlock.cpuUsPerRequest;
  const logOffText = `log off ${fixed(logOff ?? Number.NaN)} us = ${fixed(judgeRatio(logOff, floor, MAX_CPU_RATIO_TO_FLOOR).ratio, 2)}x`;
  const sqlText =
    typeof sql === 'string'
      ? `the least a SQLite log of these rows: not measured, ${sql}`
      : `the least a SQLite log of these rows costs ${fixed(sql.usPerRow.total)} us, ${sql.rowsPerCommit} rows a commit, full-text included: ` +
        `log off + it = ${fixed(judgeRatio(logOff === null ? null : logOff + sql.usPerRow.total, floor, MAX_CPU_RATIO_TO_FLOOR).ratio, 2)}x`;
  return { ...figure, airlock: `${figure.airlock} (${logOffText}; ${sqlText})` };
}

/** The floor that reads a body whole before sending it, beside the 10 MB figure: what store-and-forward costs, and what Airlock adds to it. */
function withReadFirstFloor(figure: IssueFigure, airlockMs: number, readFirstMs: number): IssueFigure {
  return {
    ...figure,
    floor: `${figure.floor}; reading it whole first ${fixed(readFirstMs)} ms`,
    airlock: `${figure.airlock} (${fixed(airlockMs / readFirstMs, 2)}x the floor reading it whole first)`,
  };
}

export function issueFigures(results: BenchResults): IssueFigure[] {
  const { throughputC1: c1, throughputC50: c50, streaming, largeBody, openStreams, rssByPhase } = results;
  const addedP99 = (target: 'undiciFloor' | 'airlock' | 'airlockLogged'): number => c1[target].p99Ms - c1.direct.p99Ms;
  const addedTtft = (target: 'undiciFloor' | 'airlock'): number => streaming[target].ttftP50Ms - streaming.direct.ttftP50Ms;
  const airlockRss = rssByPhase.airlockLogged;
  const floorRss = rssByPhase.undiciFloor;
  const rssBackLimit = airlockRss.idleBytes * MAX_RSS_ABOVE_IDLE_RATIO;
  const loop = results.stall.airlock.loopDuringLarge;
  return [
    ratioFigure(
      'proxy CPU per request, c=50',
      'us',
      c50.undiciFloor.cpuUsPerRequest,
      c50.airlockLogged.cpuUsPerRequest,
      MAX_CPU_RATIO_TO_FLOOR,
    ),
    withLogSqlFloor(
      ratioFigure(
        `proxy CPU per request, c=1, warm (after ${Math.min(c1.undiciFloor.warmupRequests, c1.airlockLogged.warmupRequests)} requests a target)`,
        'us',
        c1.undiciFloor.cpuUsPerRequest,
        c1.airlockLogged.cpuUsPerRequest,
        MAX_CPU_RATIO_TO_FLOOR,
      ),
      results,
    ),
    {
      name: 'added p99 at c=1 (vs direct)',
      goal: `<= ${MAX_ADDED_P99_C1_MS} ms`,
      floor: `${fixed(addedP99('undiciFloor'), 2)} ms${splitCoresNote(results, 'undiciFloor')}`,
      // Beside it, what shows where the tail comes from (DESIGN.md): the log off, and background threads on cores of their own.
      airlock: `${fixed(addedP99('airlockLogged'), 2)} ms (log off ${fixed(addedP99('airlock'), 2)} ms)${splitCoresNote(results, 'airlockLogged')}`,
      pass: judgeAtMost(addedP99('airlockLogged'), MAX_ADDED_P99_C1_MS),
    },
    {
      name: 'stream TTFT added (p50 vs direct)',
      goal: `<= ${MAX_ADDED_TTFT_MS} ms`,
      floor: `${fixed(addedTtft('undiciFloor'), 2)} ms`,
      airlock: `${fixed(addedTtft('airlock'), 2)} ms`,
      pass: judgeAtMost(addedTtft('airlock'), MAX_ADDED_TTFT_MS),
    },
    {
      name: `RSS after the c=50 runs, then ${RSS_SETTLE_AFTER_LOAD_MS / 1000} s after the load`,
      goal: `back to idle +${Math.round((MAX_RSS_ABOVE_IDLE_RATIO - 1) * 100)}% (${mb(rssBackLimit)})`,
      floor: `${mb(floorRss.afterC50Bytes)}, then ${mb(floorRss.afterQuietBytes)}`,
      airlock: `${mb(airlockRss.afterC50Bytes)}, then ${mb(airlockRss.afterQuietBytes)}`,
      pass: judgeAtMost(airlockRss.afterQuietBytes, rssBackLimit),
    },
    withReadFirstFloor(
      ratioFigure(
        '10 MB request body, time',
        'ms',
        largeBody.undiciFloor.elapsedMs,
        largeBody.airlock.elapsedMs,
        MAX_LARGE_BODY_RATIO_TO_FLOOR,
      ),
      largeBody.airlock.elapsedMs,
      results.largeBodyReadFirstFloorMs,
    ),
    {
      name: 'RSS idle',
      goal: `<= ${mb(MAX_IDLE_RSS_BYTES)}`,
      floor: mb(floorRss.idleBytes),
      airlock: mb(airlockRss.idleBytes),
      pass: judgeAtMost(airlockRss.idleBytes, MAX_IDLE_RSS_BYTES),
    },
    {
      name: `RSS per open stream, ${openStreams.airlock.openStreams} open`,
      goal: `<= ${fixed(MAX_BYTES_PER_STREAM / 1024, 0)} KB`,
      floor: `${fixed(openStreams.undiciFloor.bytesPerStream / 1024)} KB`,
      airlock: `${fixed(openStreams.airlock.bytesPerStream / 1024)} KB`,
      pass: judgeAtMost(openStreams.airlock.bytesPerStream, MAX_BYTES_PER_STREAM),
    },
    {
      name: 'longest event-loop stall, mixed load with large and nested bodies',
      goal: `<= ${MAX_EVENT_LOOP_STALL_MS} ms`,
      floor: loopFigure(results.stall.undiciFloor.loopDuringLarge),
      airlock: loopFigure(loop),
      pass: loop !== null && judgeAtMost(loop.maxMs, MAX_EVENT_LOOP_STALL_MS),
    },
  ];
}

export function formatIssueTable(figures: readonly IssueFigure[]): string {
  const lines = [
    'Issue 20 (floor: undici pass-through; Airlock: log on, client token)',
    '| figure | undici floor | Airlock | goal | |',
    '|---|---|---|---|---|',
  ];
  for (const figure of figures)
    lines.push(`| ${figure.name} | ${figure.floor} | ${figure.airlock} | ${figure.goal} | ${figure.pass ? 'PASS' : 'MISS'} |`);
  return lines.join('\n');
}

/** Airlock's RSS after one phase of the bench, with its main thread's heap where it was read. */
export interface RssPhase {
  phase: string;
  bytes: number;
  /** Of `bytes`: anonymous memory and file-backed pages. */
  split?: { anonBytes: number; fileBytes: number };
  heapUsedBytes?: number;
  heapTotalBytes?: number;
}

/** Airlock's RSS after each phase of the bench, in order. */
export function formatRssPhases(phases: readonly RssPhase[]): string {
  const heap = ({ heapUsedBytes, heapTotalBytes }: RssPhase): string =>
    heapUsedBytes === undefined || heapTotalBytes === undefined ? '' : ` (main heap ${mb(heapUsedBytes)} used of ${mb(heapTotalBytes)})`;
  const split = ({ split }: RssPhase): string =>
    split === undefined ? '' : ` = anon ${mb(split.anonBytes)} + file ${mb(split.fileBytes)}`;
  return [
    'Airlock (log on) RSS by phase',
    ...phases.map((phase) => `  ${phase.phase.padEnd(44)} ${mb(phase.bytes)}${split(phase)}${heap(phase)}`),
  ].join('\n');
}
