import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capturedBodies, endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { findSentinel } from '../../support/sentinel.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { READ_PATHS } from './readPaths.ts';
import type { WindowReads } from '../../../proxy/store/read/windowReads.ts';

/**
 * Two keys Airlock learns only after rows quoting them were written (a key pasted as a model name or
 * a client token's name, then set as a pool key): no shape gives them away, so only knowing them masks them.
 */
const FIRST_KEY = 'gwLATERsentinelKeyA8Zp4';
const SECOND_KEY = 'gwLATERsentinelKeyB3Qm7';
const DAY_ONE_MS = Date.UTC(2026, 0, 14, 10);
const DAY_MS = 86_400_000;

let temp: TempLog;
let knownNow: string[];
beforeEach(() => {
  knownNow = [];
  temp = openTempLog({ knownSecrets: () => knownNow });
});
afterEach(async () => {
  await temp.cleanup();
});

function emitRequest(id: string, atMs: number, model: string, clientName: string, durationMs: number): void {
  temp.events.emit(startEvent(id, { startedAtMs: atMs, requestedModel: model, upstreamModel: model, profileId: 'work', clientName }));
  temp.events.emit(
    endEvent(id, {
      status: 200,
      errorClass: null,
      durationMs,
      ttfbMs: 10,
      usage: { inputTokens: 10, outputTokens: 1 },
      costCredits: 10,
      responseModel: model,
      bodies: capturedBodies({ requestBody: Buffer.from('{}') }),
    }),
  );
}

const sentinelIn = (value: unknown) => findSentinel(JSON.stringify(value), FIRST_KEY) ?? findSentinel(JSON.stringify(value), SECOND_KEY);

/** The reads under test: the reader thread's (READ_PATHS), chosen by the run below. */
let reads: () => WindowReads;

describe.each(READ_PATHS)('%s', (_path, readsOf) => {
  beforeEach(() => {
    reads = () => readsOf(temp.log);
  });

  describe('keys learned after rows were written, in the aggregates read from the log', () => {
    it('are masked in spend per day by model and client, and groups that mask alike are one row', async () => {
      emitRequest('a1', DAY_ONE_MS, `m-${FIRST_KEY}`, `c-${FIRST_KEY}`, 100);
      emitRequest('a2', DAY_ONE_MS + 1, `m-${SECOND_KEY}`, `c-${SECOND_KEY}`, 100);
      emitRequest('a3', DAY_ONE_MS + 2, 'gpt-4o', 'cli', 100);
      await temp.log.flush();
      const range = { fromMs: DAY_ONE_MS - DAY_MS, toMs: DAY_ONE_MS + DAY_MS, utcOffsetMinutes: 0 };
      // Not secrets yet: shown as they were sent.
      expect(sentinelIn(await reads().spendByDay({ ...range, groupBy: 'model' }))).not.toBeNull();

      knownNow.push(FIRST_KEY, SECOND_KEY);
      const byModel = await reads().spendByDay({ ...range, groupBy: 'model' });
      const byClient = await reads().spendByDay({ ...range, groupBy: 'client' });
      for (const rows of [byModel, byClient]) expect(sentinelIn(rows)).toBeNull();
      expect(byModel.map((row) => [row.day, row.group, row.requests, row.costCredits])).toEqual(
        expect.arrayContaining([
          ['2026-01-14', 'm-[redacted]', 2, 20],
          ['2026-01-14', 'gpt-4o', 1, 10],
        ]),
      );
      expect(byModel).toHaveLength(2);
      expect(byClient.map((row) => [row.group, row.requests, row.inputTokens])).toEqual(
        expect.arrayContaining([
          ['c-[redacted]', 2, 20],
          ['cli', 1, 10],
        ]),
      );
      expect(byClient).toHaveLength(2);
    });

    it("are masked in the models' statistics, and models that mask alike are one entry over all their requests", async () => {
      emitRequest('s1', DAY_ONE_MS, `m-${FIRST_KEY}`, 'cli', 100);
      emitRequest('s2', DAY_ONE_MS + 1, `m-${SECOND_KEY}`, 'cli', 300);
      emitRequest('s3', DAY_ONE_MS + 2, 'gpt-4o', 'cli', 50);
      await temp.log.flush();
      knownNow.push(FIRST_KEY, SECOND_KEY);
      const stats = await reads().modelStats({ fromMs: DAY_ONE_MS - DAY_MS, toMs: DAY_ONE_MS + DAY_MS });
      expect(sentinelIn(stats)).toBeNull();
      expect(stats.map((entry) => [entry.model, entry.requests, entry.p95DurationMs])).toEqual([
        ['m-[redacted]', 2, 300],
        ['gpt-4o', 1, 50],
      ]);
    });
  });
});
