import { describe, expect, it } from 'vitest';
import { TopLevelScanner } from '../../../proxy/forward/jsonScan.ts';
import { SCAN_SLICE_MAX_BYTES, ScanQueue } from '../../../proxy/forward/scanQueue.ts';
import { scanTopLevel } from '../../support/scanTopLevel.ts';
/** Any limit does; Airlock's own is MAX_JSON_NESTING_DEPTH (server/defaults.ts). */
const DEPTH_LIMIT = 1000;

const nestedArrays = (levels: number): string => `{"x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
const nestedObjects = (levels: number): string => `{"x":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
const manyKeys = (count: number): string => `{${Array.from({ length: count }, (_unused, index) => `"k${index}":1`).join(',')}}`;

interface ShapeCase {
  label: string;
  json: string;
  maxDepth: number;
  marks: number;
  tooDeep?: boolean;
}

// Marks are the opening brackets, commas and colons outside strings.
const SHAPES: ShapeCase[] = [
  { label: 'a flat object', json: '{"model":"m","stream":true}', maxDepth: 1, marks: 4 },
  { label: 'brackets, commas and colons inside strings', json: '{"s":"[[[{{{,,,:::]]]}}}"}', maxDepth: 1, marks: 2 },
  { label: 'an escaped quote before brackets in a string', json: '{"s":"\\"[[[{","t":1}', maxDepth: 1, marks: 4 },
  { label: 'an escaped backslash before the closing quote', json: '{"s":"\\\\","t":[[1]]}', maxDepth: 3, marks: 6 },
  { label: 'empty arrays in an array', json: '{"a":[[],[],[]]}', maxDepth: 3, marks: 8 },
  { label: 'numbers and literals', json: '{"a":[1,2.5e3,true,null,false]}', maxDepth: 2, marks: 7 },
  { label: 'arrays nested to the limit', json: nestedArrays(DEPTH_LIMIT - 1), maxDepth: DEPTH_LIMIT, marks: DEPTH_LIMIT + 1 },
  { label: 'objects nested to the limit', json: nestedObjects(DEPTH_LIMIT - 1), maxDepth: DEPTH_LIMIT, marks: 2 * DEPTH_LIMIT },
  {
    label: 'arrays one level past the limit',
    json: nestedArrays(DEPTH_LIMIT),
    maxDepth: DEPTH_LIMIT + 1,
    marks: DEPTH_LIMIT + 2,
    tooDeep: true,
  },
  {
    label: 'objects one level past the limit',
    json: nestedObjects(DEPTH_LIMIT),
    maxDepth: DEPTH_LIMIT + 1,
    marks: 2 * DEPTH_LIMIT + 1,
    tooDeep: true,
  },
  { label: 'a thousand small keys', json: manyKeys(1000), maxDepth: 1, marks: 1 + 1000 + 999 },
  { label: 'bytes after the object are not measured', json: `{"a":1} ${'['.repeat(5000)}`, maxDepth: 1, marks: 2 },
];

function chunksOf(body: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < body.length; start += size) chunks.push(body.subarray(start, start + size));
  return chunks;
}

describe('the scanner measures nesting and structure', () => {
  it.each(SHAPES)('$label', ({ json, maxDepth, marks, tooDeep }) => {
    const scan = scanTopLevel([Buffer.from(json)], DEPTH_LIMIT);
    expect(scan).toMatchObject({ maxDepth, structuralMarks: marks, tooDeep: tooDeep ?? false });
  });

  it.each(SHAPES.filter((shape) => shape.json.length < 200))('$label, split at every byte', ({ json, maxDepth, marks, tooDeep }) => {
    const body = Buffer.from(json);
    for (let cut = 0; cut <= body.length; cut += 1) {
      const scan = scanTopLevel([body.subarray(0, cut), body.subarray(cut)], DEPTH_LIMIT);
      expect(scan).toMatchObject({ maxDepth, structuralMarks: marks, tooDeep: tooDeep ?? false });
    }
  });

  it('stops at the first level past the limit of a body nested two million levels deep', () => {
    const scanner = new TopLevelScanner(DEPTH_LIMIT);
    const chunks = chunksOf(Buffer.from(nestedArrays(2_000_000)), 64 * 1024);
    const fed = chunks.filter((chunk) => scanner.feed(chunk)).length;
    expect(scanner.result.tooDeep).toBe(true);
    expect(scanner.result.maxDepth).toBe(DEPTH_LIMIT + 1);
    // The first chunk holds the level past the limit; every later chunk is ignored.
    expect(fed).toBe(0);
    expect(scanner.feed(chunks[1]!)).toBe(false);
  });
});

describe('ScanQueue spreads a body over turns of the event loop', () => {
  /** A scheduler that runs nothing until told: each run() is one turn. */
  function manualTurns(): { schedule: (run: () => void) => void; runTurn: () => boolean } {
    const queued: (() => void)[] = [];
    return {
      schedule: (run) => queued.push(run),
      runTurn: () => {
        const run = queued.shift();
        run?.();
        return run !== undefined;
      },
    };
  }

  it('scans at most one slice per turn, whatever the body, and gives the whole body’s result', async () => {
    const body = Buffer.from(manyKeys(200_000));
    const sliceBytes = 16 * 1024;
    const turns = manualTurns();
    const scanner = new TopLevelScanner(DEPTH_LIMIT);
    const fedPerTurn: number[] = [];
    let fedThisTurn = 0;
    const feed = scanner.feed.bind(scanner);
    scanner.feed = (chunk) => {
      fedThisTurn += chunk.length;
      return feed(chunk);
    };
    const queue = new ScanQueue(scanner, { sliceBytes, schedule: turns.schedule });
    // A burst of reads arrives in one go, as libuv delivers up to 2 MiB from one socket.
    for (const chunk of chunksOf(body, 64 * 1024)) queue.push(chunk);
    expect(fedThisTurn).toBe(0);
    const drained = queue.drained();
    for (let turn = 0; turn < body.length && turns.runTurn(); turn += 1) {
      fedPerTurn.push(fedThisTurn);
      fedThisTurn = 0;
    }
    await drained;
    expect(Math.max(...fedPerTurn)).toBeLessThanOrEqual(sliceBytes);
    expect(fedPerTurn.reduce((sum, bytes) => sum + bytes, 0)).toBe(body.length);
    expect(fedPerTurn.length).toBe(Math.ceil(body.length / sliceBytes));
    expect(scanner.result).toMatchObject({ isObject: true, maxDepth: 1, structuralMarks: 1 + 200_000 + 199_999 });
  });

  it('drops what is left once the scan cannot change (nesting past the limit)', async () => {
    const turns = manualTurns();
    const queue = new ScanQueue(new TopLevelScanner(DEPTH_LIMIT), { sliceBytes: 4096, schedule: turns.schedule });
    for (const chunk of chunksOf(Buffer.from(nestedArrays(100_000)), 4096)) queue.push(chunk);
    const drained = queue.drained();
    let turnsRun = 0;
    while (turns.runTurn()) turnsRun += 1;
    await drained;
    expect(queue.scanner.result.tooDeep).toBe(true);
    expect(turnsRun).toBe(1);
  });

  /** A scanner that notes each feed's length, and a clock that each feed moves on by `msPerFeed`. */
  function timedScanner(msPerFeed: number): { scanner: TopLevelScanner; fed: number[]; now: () => number } {
    const scanner = new TopLevelScanner(DEPTH_LIMIT);
    const fed: number[] = [];
    let clockMs = 0;
    const feed = scanner.feed.bind(scanner);
    scanner.feed = (chunk) => {
      fed.push(chunk.length);
      clockMs += msPerFeed;
      return feed(chunk);
    };
    return { scanner, fed, now: () => clockMs };
  }

  // A slow stretch of the scan (code not compiled yet, a core shared with others) took 3-5 ms for
  // one 128 KiB slice of small keys in the bench's probes: the slice also ends on the clock.
  it('ends a slice once its time is spent, in steps, before its bytes are', () => {
    const turns = manualTurns();
    const { scanner, fed, now } = timedScanner(0.4);
    const queue = new ScanQueue(scanner, { sliceBytes: 128 * 1024, stepBytes: 16 * 1024, sliceMs: 1, now, schedule: turns.schedule });
    for (const chunk of chunksOf(Buffer.from(manyKeys(50_000)), 64 * 1024)) queue.push(chunk);
    turns.runTurn();
    // Steps of 16 KiB at 0.4 ms each: the third passes 1 ms.
    expect(fed).toEqual([16 * 1024, 16 * 1024, 16 * 1024]);
    turns.runTurn();
    expect(fed).toHaveLength(6);
  });

  // A 10 MB body of text scans at about 10 GB/s: slices of 128 KiB left its scan behind the reads
  // (up to 2 MiB a turn), and the body's end waited for the turns it lagged.
  it('scans up to a slice of SCAN_SLICE_MAX_BYTES a turn while the clock allows', () => {
    const turns = manualTurns();
    const { scanner, fed } = timedScanner(0);
    const queue = new ScanQueue(scanner, { now: () => 0, schedule: turns.schedule });
    const text = Buffer.from(JSON.stringify({ model: 'm', input: 'x'.repeat(3 * SCAN_SLICE_MAX_BYTES) }));
    for (const chunk of chunksOf(text, 64 * 1024)) queue.push(chunk);
    turns.runTurn();
    expect(fed.reduce((sum, bytes) => sum + bytes, 0)).toBe(SCAN_SLICE_MAX_BYTES);
  });

  it('is drained at once when nothing was pushed', async () => {
    await expect(new ScanQueue(new TopLevelScanner()).drained()).resolves.toBeUndefined();
  });
});
