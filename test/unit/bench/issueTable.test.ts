import { describe, expect, it } from 'vitest';
import {
  formatIssueTable,
  formatRssPhases,
  issueFigures,
  judgeAtMost,
  judgeRatio,
  MAX_BYTES_PER_STREAM,
  MAX_IDLE_RSS_BYTES,
} from '../../bench/issueTable.ts';
import type { ThroughputResult } from '../../bench/scenarios.ts';
import type { BenchResults } from '../../bench/targets.ts';

const MB = 1024 * 1024;

function throughput(cpuUsPerRequest: number | null, p99Ms: number): ThroughputResult {
  return {
    count: 1,
    p50Ms: 1,
    p99Ms,
    meanMs: 1,
    failures: 0,
    requestsPerSecond: 1,
    roundRequestsPerSecond: [1],
    cpuUsPerRequest,
    roundCpuUsPerRequest: [],
    warmupRequests: 12_000,
  };
}

const stream = (ttftP50Ms: number) => ({ streams: 1, ttfbP50Ms: 1, ttftP50Ms, meanGapsMs: [], mergedReads: 0, incompleteStreams: 0 });
const body = (elapsedMs: number) => ({
  bodyBytes: 10,
  elapsedMs,
  byteForByte: true,
  peakGrowthBytes: 0,
  rssBeforeBytes: 0,
  rssAfterBytes: 0,
});
const open = (bytesPerStream: number) => ({ openStreams: 200, rssBeforeBytes: 0, rssDuringBytes: 0, rssAfterBytes: 0, bytesPerStream });
const phases = (idleBytes: number, afterQuietBytes: number) => ({
  idleBytes,
  afterC1Bytes: idleBytes,
  afterC50Bytes: 2 * idleBytes,
  afterStreamsBytes: idleBytes,
  afterQuietBytes,
});

/** Results where Airlock meets every goal exactly at its limit; `change` moves one figure. */
function results(change: (draft: BenchResults) => void = () => undefined): BenchResults {
  const draft = {
    throughputC50: {
      direct: throughput(null, 1),
      floor: throughput(80, 1),
      undiciFloor: throughput(70, 1),
      airlock: throughput(90, 1),
      airlockLogged: throughput(105, 1),
    },
    throughputC1: {
      direct: throughput(null, 1),
      floor: throughput(110, 2),
      undiciFloor: throughput(100, 2),
      airlock: throughput(130, 2),
      airlockLogged: throughput(150, 3),
    },
    splitCoresC1: {
      direct: throughput(null, 0.5),
      undiciFloor: throughput(null, 0.75),
      airlock: throughput(null, 1),
      airlockLogged: throughput(null, 1.5),
    },
    streaming: { direct: stream(10), floor: stream(11), undiciFloor: stream(10.5), airlock: stream(11) },
    largeBody: { direct: body(30), floor: body(40), undiciFloor: body(40), airlock: body(60) },
    largeBodyReadFirstFloorMs: 48,
    logSqlFloorC1: 'not run in this test',
    openStreams: { floor: open(40_000), undiciFloor: open(40_000), airlock: open(MAX_BYTES_PER_STREAM) },
    rssByPhase: {
      floor: phases(50 * MB, 50 * MB),
      undiciFloor: phases(50 * MB, 50 * MB),
      airlockLogged: phases(MAX_IDLE_RSS_BYTES, MAX_IDLE_RSS_BYTES * 1.1),
    },
    stall: {
      direct: { loopAlone: null, loopDuringLarge: null },
      undiciFloor: { loopAlone: null, loopDuringLarge: { maxMs: 12, p99Ms: 1, maxBusyMs: 3 } },
      airlock: { loopAlone: null, loopDuringLarge: { maxMs: 10, p99Ms: 1, maxBusyMs: 5 } },
    },
  } as unknown as BenchResults;
  change(draft);
  return draft;
}

const passes = (figures: ReturnType<typeof issueFigures>): boolean[] => figures.map((figure) => figure.pass);

describe('issue 20 table', () => {
  it('judges a ratio to the floor, and misses what could not be measured', () => {
    expect(judgeRatio(150, 100, 1.5)).toEqual({ ratio: 1.5, pass: true });
    expect(judgeRatio(151, 100, 1.5).pass).toBe(false);
    expect(judgeRatio(null, 100, 1.5).pass).toBe(false);
    expect(judgeRatio(100, 0, 1.5).pass).toBe(false);
    expect(judgeAtMost(2, 2)).toBe(true);
    expect(judgeAtMost(Number.NaN, 2)).toBe(false);
  });

  it('passes every figure at its limit: CPU against the undici floor, latencies against direct, RSS against idle', () => {
    const figures = issueFigures(results());
    expect(figures).toHaveLength(9);
    expect(passes(figures)).toEqual(Array(9).fill(true));
  });

  it.each([
    [
      'proxy CPU per request, c=50',
      (r: BenchResults) => {
        r.throughputC50.airlockLogged.cpuUsPerRequest = 106;
      },
    ],
    [
      'proxy CPU per request, c=1',
      (r: BenchResults) => {
        r.throughputC1.airlockLogged.cpuUsPerRequest = 151;
      },
    ],
    [
      'added p99 at c=1',
      (r: BenchResults) => {
        r.throughputC1.airlockLogged.p99Ms = 3.1;
      },
    ],
    [
      'stream TTFT added',
      (r: BenchResults) => {
        r.streaming.airlock.ttftP50Ms = 11.1;
      },
    ],
    [
      'RSS after the c=50 runs',
      (r: BenchResults) => {
        r.rssByPhase.airlockLogged.afterQuietBytes += 1;
      },
    ],
    [
      '10 MB request body',
      (r: BenchResults) => {
        r.largeBody.airlock.elapsedMs = 61;
      },
    ],
    [
      'RSS idle',
      (r: BenchResults) => {
        r.rssByPhase.airlockLogged.idleBytes += 1;
      },
    ],
    [
      'RSS per open stream',
      (r: BenchResults) => {
        r.openStreams.airlock.bytesPerStream += 1;
      },
    ],
    [
      'longest event-loop stall',
      (r: BenchResults) => {
        r.stall.airlock.loopDuringLarge = {
          maxMs: 10.5,
          p99Ms: 1,
          maxBusyMs: 1,
          maxOwnDelayMs: 1,
          longestGapCoreWaitMs: 9,
          longestOwnDelayAsleepMs: 0,
        };
      },
    ],
  ])('misses %s just past its goal, and only that one', (name, change) => {
    const figures = issueFigures(results(change));
    expect(figures.filter((figure) => !figure.pass).map((figure) => figure.name)).toEqual([expect.stringContaining(name)]);
  });

  it('says how much of the longest delay the loop held itself, how much of that it slept, and how long it waited for a core', () => {
    const table = formatIssueTable(
      issueFigures(
        results((r) => {
          r.stall.airlock.loopDuringLarge = {
            maxMs: 14,
            p99Ms: 1,
            maxBusyMs: 6,
            maxOwnDelayMs: 7.5,
            longestGapCoreWaitMs: 6.2,
            longestOwnDelayAsleepMs: 2.5,
          };
        }),
      ),
    );
    expect(table).toContain(
      "14.0 ms delay (monitorEventLoopDelay); held by the loop itself 7.5 ms (of it asleep on a lock or V8's helper threads 2.5 ms; the longest gap waited 6.2 ms for a core)",
    );
    expect(table).toMatch(/longest event-loop stall.*\| MISS \|/);
  });

  it('names the c=1 CPU figure warm, with the fewest requests a judged target served before its rounds', () => {
    const table = formatIssueTable(
      issueFigures(
        results((r) => {
          r.throughputC1.airlockLogged.warmupRequests = 11_500;
        }),
      ),
    );
    expect(table).toContain('| proxy CPU per request, c=1, warm (after 11500 requests a target) |');
  });

  it('prints beside the c=1 CPU the log off and the least a SQLite log of the same rows costs, added to the log off, against the floor', () => {
    const logSqlFloorC1 = {
      rows: 4700,
      commits: 43,
      rowsPerCommit: 110,
      usPerRow: { requestRows: 8, bodies: 2, commit: 2, fullText: 8, checkpoint: 3, total: 23 },
      replayTotalsUs: [30, 23, 22],
    };
    const table = formatIssueTable(issueFigures(results((r) => Object.assign(r, { logSqlFloorC1 }))));
    expect(table).toContain(
      '| 150.0 us = 1.50x (log off 130.0 us = 1.30x; the least a SQLite log of these rows costs 23.0 us, 110 rows a commit, full-text included: log off + it = 1.53x) |',
    );
    const unmeasured = formatIssueTable(issueFigures(results((r) => Object.assign(r, { logSqlFloorC1: 'the log could not be read' }))));
    expect(unmeasured).toContain(
      '(log off 130.0 us = 1.30x; the least a SQLite log of these rows: not measured, the log could not be read) |',
    );
  });

  it("prints the undici floor's loop under the same load in the floor's column, judging Airlock's alone", () => {
    const table = formatIssueTable(issueFigures(results()));
    expect(table).toMatch(
      /\| longest event-loop stall, mixed load with large and nested bodies \| 12\.0 ms delay \(monitorEventLoopDelay\)[^|]*3\.0 ms CPU between turns \| 10\.0 ms delay[^|]*\| <= 10 ms \| PASS \|/,
    );
  });

  it('prints each figure with its goal and verdict', () => {
    const table = formatIssueTable(
      issueFigures(
        results((r) => {
          r.throughputC1.airlockLogged.cpuUsPerRequest = 300;
        }),
      ),
    );
    expect(table).toMatch(
      /\| proxy CPU per request, c=1, warm \(after 12000 requests a target\) \| 100\.0 us \| 300\.0 us = 3\.00x \(log off [^|]*\) \| <= 1\.5x the floor \| MISS \|/,
    );
    expect(table).toContain('| RSS idle | 50.0 MB | 100.0 MB | <= 100.0 MB | PASS |');
  });

  it('prints beside the added p99 the log off and the background threads on their own core, judging only the logged Airlock as measured', () => {
    const table = formatIssueTable(
      issueFigures(
        results((r) => {
          r.throughputC1.airlockLogged.p99Ms = 3.5;
          r.throughputC1.airlock.p99Ms = 1.25;
        }),
      ),
    );
    expect(table).toContain(
      '| added p99 at c=1 (vs direct) | 1.00 ms; background threads on cores of their own 0.25 ms | 2.50 ms (log off 0.25 ms); background threads on cores of their own 1.00 ms (log off 0.50 ms) | <= 2 ms | MISS |',
    );
  });

  it('prints the floor that reads a body whole first beside the 10 MB figure, judging against the piping floor', () => {
    const table = formatIssueTable(issueFigures(results()));
    expect(table).toContain(
      '| 10 MB request body, time | 40.0 ms; reading it whole first 48.0 ms | 60.0 ms = 1.50x (1.25x the floor reading it whole first) | <= 1.5x the floor | PASS |',
    );
  });

  it('says why the background threads could not be given their own core, and still judges the figure as measured', () => {
    const table = formatIssueTable(
      issueFigures(
        results((r) => {
          r.splitCoresC1 = 'needs taskset (util-linux)';
        }),
      ),
    );
    expect(table).toMatch(/background threads on cores of their own: not measured, needs taskset \(util-linux\) \| <= 2 ms \| PASS \|/);
  });
});

describe('formatRssPhases', () => {
  it('splits each phase into anonymous and file-backed memory, with the main heap where read', () => {
    const mib = 1024 * 1024;
    expect(
      formatRssPhases([
        {
          phase: 'idle',
          bytes: 100 * mib,
          split: { anonBytes: 40 * mib, fileBytes: 60 * mib },
          heapUsedBytes: 18 * mib,
          heapTotalBytes: 20 * mib,
        },
        { phase: 'open streams', bytes: 120 * mib },
      ]),
    ).toBe(
      [
        'Airlock (log on) RSS by phase',
        `  ${'idle'.padEnd(44)} 100.0 MB = anon 40.0 MB + file 60.0 MB (main heap 18.0 MB used of 20.0 MB)`,
        `  ${'open streams'.padEnd(44)} 120.0 MB`,
      ].join('\n'),
    );
  });
});
