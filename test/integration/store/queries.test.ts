import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capturedBodies, endEvent, startEvent, TEST_STARTED_AT_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { READ_PATHS } from './readPaths.ts';
import type { WindowReads } from '../../../proxy/store/read/windowReads.ts';
import { indexEveryBody } from './indexEveryBody.ts';
import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import type { RequestCursor } from '../../../proxy/contracts/log.ts';
import { openLogDatabase } from '../../../proxy/store/schema.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Seed {
  id: string;
  atMs: number;
  model?: string;
  profileId?: string;
  clientName?: string;
  status?: number;
  /** Defaults to upstream_error for a 4xx/5xx status. */
  errorClass?: ErrorClass;
  durationMs?: number;
  ttfbMs?: number;
  inputTokens?: number;
  body?: string;
}

function emitRequest(temp: TempLog, seed: Seed): void {
  const model = seed.model ?? 'gpt-4o';
  temp.events.emit(
    startEvent(seed.id, {
      startedAtMs: seed.atMs,
      requestedModel: model,
      upstreamModel: model,
      profileId: seed.profileId ?? 'work',
      clientName: seed.clientName ?? 'cli',
    }),
  );
  const status = seed.status ?? 200;
  temp.events.emit(
    endEvent(seed.id, {
      status,
      errorClass: seed.errorClass ?? (status >= 400 ? 'upstream_error' : null),
      durationMs: seed.durationMs ?? 100,
      ttfbMs: seed.ttfbMs ?? 10,
      usage: { inputTokens: seed.inputTokens ?? 10, outputTokens: 1 },
      // One credit per input token, except the unpriced model.
      costCredits: model === 'free-model' ? null : (seed.inputTokens ?? 10),
      responseModel: model,
      bodies: capturedBodies({ requestBody: Buffer.from(JSON.stringify({ prompt: seed.body ?? `prompt ${seed.id}` })) }),
    }),
  );
}

/** Indexes every logged body now, through a second connection. */
function indexLoggedBodies(dataDir: string): void {
  const db = openLogDatabase({ dataDir });
  try {
    indexEveryBody(db);
  } finally {
    db.close();
  }
}

let temp: TempLog;
beforeEach(() => {
  temp = openTempLog();
});
afterEach(async () => {
  await temp.cleanup();
});

/** The reads under test: the reader thread's (READ_PATHS), chosen by the run below. */
let reads: () => WindowReads;

describe.each(READ_PATHS)('%s', (_path, readsOf) => {
  beforeEach(() => {
    reads = () => readsOf(temp.log);
  });

  describe('listRequests', () => {
    it('pages newest first with a keyset cursor, ties broken by id', async () => {
      // Pairs share a start time, so the cursor must use the id as well.
      for (let index = 0; index < 25; index += 1) {
        emitRequest(temp, { id: `r${String(index).padStart(2, '0')}`, atMs: TEST_STARTED_AT_MS - Math.floor(index / 2) * MINUTE_MS });
      }
      await temp.log.flush();
      const seen: string[] = [];
      let cursor: RequestCursor | undefined;
      let pages = 0;
      do {
        const page = await reads().listRequests({ limit: 10, beforeCursor: cursor });
        seen.push(...page.rows.map((row) => row.id));
        cursor = page.nextCursor ?? undefined;
        pages += 1;
      } while (cursor !== undefined && pages < 10);
      expect(pages).toBe(3);
      const expected = Array.from({ length: 25 }, (_, index) => `r${String(index).padStart(2, '0')}`).sort((a, b) => {
        const byTime = Math.floor(Number(a.slice(1)) / 2) - Math.floor(Number(b.slice(1)) / 2);
        return byTime !== 0 ? byTime : b.localeCompare(a);
      });
      expect(seen).toEqual(expected);
    });

    it('filters by time, profile, model, client, status and error class', async () => {
      emitRequest(temp, { id: 'a', atMs: TEST_STARTED_AT_MS - 3 * MINUTE_MS, profileId: 'home', model: 'claude-x' });
      emitRequest(temp, { id: 'b', atMs: TEST_STARTED_AT_MS - 2 * MINUTE_MS, clientName: 'ide', status: 429 });
      emitRequest(temp, { id: 'c', atMs: TEST_STARTED_AT_MS - 1 * MINUTE_MS, status: 502 });
      emitRequest(temp, { id: 'd', atMs: TEST_STARTED_AT_MS });
      await temp.log.flush();
      const ids = async (filter: Parameters<TempLog['log']['listRequests']>[0]): Promise<string[]> =>
        (await reads().listRequests(filter)).rows.map((row) => row.id);

      expect(await ids({ fromMs: TEST_STARTED_AT_MS - 2 * MINUTE_MS, toMs: TEST_STARTED_AT_MS })).toEqual(['c', 'b']);
      expect(await ids({ profileId: 'home' })).toEqual(['a']);
      expect(await ids({ model: 'claude-x' })).toEqual(['a']);
      // A trailing * matches every id that starts with the rest; nothing else is a pattern.
      expect(await ids({ model: 'claude*' })).toEqual(['a']);
      expect(await ids({ model: 'gpt-4*' })).toEqual(['d', 'c', 'b']);
      expect(await ids({ model: 'gpt_4*' })).toEqual([]);
      expect(await ids({ model: 'claude' })).toEqual([]);
      expect(await ids({ clientName: 'ide' })).toEqual(['b']);
      expect(await ids({ status: 429 })).toEqual(['b']);
      expect(await ids({ status: 'error' })).toEqual(['c', 'b']);
      expect(await ids({ status: 'ok' })).toEqual(['d', 'a']);
      expect(await ids({ errorClass: 'upstream_error', clientName: 'ide' })).toEqual(['b']);
      expect(await ids({ clientPath: '/v1/chat/completions' })).toEqual(['d', 'c', 'b', 'a']);
      expect(await ids({ clientPath: '/v1/messages' })).toEqual([]);

      // Facets count the values of the requests a filter matches, most frequent first.
      const facets = await reads().facets({ status: 'error' });
      expect(facets.status).toEqual([
        { value: '429', count: 1 },
        { value: '502', count: 1 },
      ]);
      expect(facets.errorClass).toEqual([{ value: 'upstream_error', count: 2 }]);
      expect(facets.client).toEqual([
        { value: 'cli', count: 1 },
        { value: 'ide', count: 1 },
      ]);
      expect((await reads().facets({})).model).toEqual([
        { value: 'gpt-4o', count: 3 },
        { value: 'claude-x', count: 1 },
      ]);
      expect((await reads().facets({})).endpoint).toEqual([{ value: '/v1/chat/completions', count: 4 }]);
    });

    // Bodies wait for the full-text index (fullTextBackfill.ts): a search must find them either way.
    it.each([
      ['waiting for the full-text index', false],
      ['in the full-text index', true],
    ])('finds requests by full text in bodies %s, including CJK and short terms', async (_state, indexed) => {
      emitRequest(temp, { id: 'fox', atMs: TEST_STARTED_AT_MS - 3, body: 'the quick brown fox' });
      emitRequest(temp, { id: 'cjk', atMs: TEST_STARTED_AT_MS - 2, body: '请把这段文字翻译成英文' });
      emitRequest(temp, { id: 'scattered', atMs: TEST_STARTED_AT_MS - 1, body: 'xabcd bcdex' });
      emitRequest(temp, { id: 'other', atMs: TEST_STARTED_AT_MS, body: 'nothing to see' });
      await temp.log.flush();
      if (indexed) indexLoggedBodies(temp.dataDir);
      const ids = async (text: string): Promise<string[]> => (await reads().listRequests({ text })).rows.map((row) => row.id);

      expect(await ids('brown fox')).toEqual(['fox']);
      expect(await ids('QUICK')).toEqual(['fox']);
      expect(await ids('翻译成')).toEqual(['cjk']);
      expect(await ids('翻译')).toEqual(['cjk']);
      // 'scattered' holds every trigram of "abcde", but not the text itself.
      expect(await ids('abcde')).toEqual([]);
      expect(await ids('bcdex')).toEqual(['scattered']);
      // Every response body says it.
      expect(await ids('hi there')).toEqual(['other', 'scattered', 'cjk', 'fox']);
      expect(await ids('"unbalanced OR')).toEqual([]);
    });

    // The window shows a JSON body decoded: text typed as seen there must find the body as sent.
    it.each([
      ['waiting for the full-text index', false],
      ['in the full-text index', true],
    ])('finds text a JSON body holds escaped, in bodies %s', async (_state, indexed) => {
      emitRequest(temp, { id: 'quoted', atMs: TEST_STARTED_AT_MS - 2, body: 'say "hi"\nto C:\\Users' });
      // Python's json.dumps writes every non-ASCII character as \uXXXX by default.
      temp.events.emit(startEvent('ascii', { startedAtMs: TEST_STARTED_AT_MS - 1 }));
      const pythonBody = '{"messages": [{"role": "user", "content": "\\u8bf7\\u628a\\u8fd9\\u6bb5 \\ud83d\\ude00"}]}';
      temp.events.emit(endEvent('ascii', { bodies: capturedBodies({ requestBody: Buffer.from(pythonBody) }) }));
      await temp.log.flush();
      if (indexed) indexLoggedBodies(temp.dataDir);
      const ids = async (text: string): Promise<string[]> => (await reads().listRequests({ text })).rows.map((row) => row.id);

      expect(await ids('say "hi"')).toEqual(['quoted']);
      expect(await ids('"hi"\nto')).toEqual(['quoted']);
      expect(await ids('C:\\Users')).toEqual(['quoted']);
      expect(await ids('请把这段')).toEqual(['ascii']);
      expect(await ids('这段 😀')).toEqual(['ascii']);
      // The escaped text as stored is still found.
      expect(await ids('\\u8bf7')).toEqual(['ascii']);
    });

    it('finds requests by text in their client, model and path too, as the window does for live rows', async () => {
      emitRequest(temp, { id: 'codex', atMs: TEST_STARTED_AT_MS - 2, clientName: 'codex-cli', body: 'plain' });
      emitRequest(temp, { id: 'mini', atMs: TEST_STARTED_AT_MS - 1, model: 'gpt-4o-mini', body: 'plain' });
      emitRequest(temp, { id: 'neither', atMs: TEST_STARTED_AT_MS, body: 'plain' });
      await temp.log.flush();
      const ids = async (text: string): Promise<string[]> => (await reads().listRequests({ text })).rows.map((row) => row.id);

      expect(await ids('CODEX')).toEqual(['codex']);
      expect(await ids('4o-mini')).toEqual(['mini']);
      expect(await ids('chat/completions')).toEqual(['neither', 'mini', 'codex']);
      expect(await ids('xyz-no-such')).toEqual([]);
    });
  });

  describe('aggregates', () => {
    it('computes p50 and p95 of duration and time to first byte per model by nearest rank', async () => {
      for (let index = 1; index <= 100; index += 1) {
        emitRequest(temp, {
          id: `a${index}`,
          atMs: TEST_STARTED_AT_MS - index,
          model: 'alpha',
          durationMs: index * 10,
          ttfbMs: index,
          status: index <= 5 ? 500 : 200,
        });
      }
      for (const [index, durationMs] of [300, 100, 200].entries()) {
        emitRequest(temp, { id: `b${index}`, atMs: TEST_STARTED_AT_MS - index, model: 'beta', durationMs, ttfbMs: durationMs / 10 });
      }
      await temp.log.flush();
      const stats = await reads().modelStats({ fromMs: TEST_STARTED_AT_MS - DAY_MS, toMs: TEST_STARTED_AT_MS + 1 });
      expect(stats).toEqual([
        { model: 'alpha', requests: 100, errors: 5, errorRate: 0.05, p50DurationMs: 500, p95DurationMs: 950, p50TtfbMs: 50, p95TtfbMs: 95 },
        { model: 'beta', requests: 3, errors: 0, errorRate: 0, p50DurationMs: 200, p95DurationMs: 300, p50TtfbMs: 20, p95TtfbMs: 30 },
      ]);
    });

    it("counts only the gateway's errors in a model's figures, not Airlock's own refusals", async () => {
      emitRequest(temp, { id: 'ok', atMs: TEST_STARTED_AT_MS - 4, model: 'gamma' });
      emitRequest(temp, { id: 'limited', atMs: TEST_STARTED_AT_MS - 3, model: 'gamma', status: 429, errorClass: 'rate_limited' });
      emitRequest(temp, { id: 'paused', atMs: TEST_STARTED_AT_MS - 2, model: 'gamma', status: 429, errorClass: 'client_paused' });
      emitRequest(temp, { id: 'capped', atMs: TEST_STARTED_AT_MS - 1, model: 'gamma', status: 429, errorClass: 'budget_exceeded' });
      emitRequest(temp, { id: 'gone', atMs: TEST_STARTED_AT_MS, model: 'gamma', status: 499, errorClass: 'client_aborted' });
      await temp.log.flush();
      const [gamma] = await reads().modelStats({ fromMs: TEST_STARTED_AT_MS - DAY_MS, toMs: TEST_STARTED_AT_MS + 1 });
      // The two refusals never reached the gateway; the client that hung up did, but it is not the model's error.
      expect(gamma).toMatchObject({ model: 'gamma', requests: 3, errors: 1 });
    });

    it('sums spend per day and group, counting unpriced requests apart', async () => {
      const dayOne = Date.UTC(2026, 0, 14, 10);
      const dayTwo = Date.UTC(2026, 0, 15, 10);
      emitRequest(temp, { id: 'x1', atMs: dayOne, model: 'gpt-4o', inputTokens: 3 });
      emitRequest(temp, { id: 'x2', atMs: dayOne + 1, model: 'free-model', inputTokens: 7 });
      emitRequest(temp, { id: 'x3', atMs: dayTwo, model: 'gpt-4o', inputTokens: 4, clientName: 'ide' });
      await temp.log.flush();
      const range = { fromMs: dayOne - DAY_MS, toMs: dayTwo + DAY_MS, utcOffsetMinutes: 0 };

      expect(await reads().spendByDay({ ...range, groupBy: null })).toEqual([
        // No gateway here states its charge: no such sum, and every answered request said as without one.
        {
          day: '2026-01-14',
          group: null,
          requests: 2,
          costCredits: 3,
          unpricedRequests: 1,
          inputTokens: 10,
          outputTokens: 2,
          gatewayCost: null,
          gatewayCostProfiles: [],
          unstatedRequests: 2,
        },
        {
          day: '2026-01-15',
          group: null,
          requests: 1,
          costCredits: 4,
          unpricedRequests: 0,
          inputTokens: 4,
          outputTokens: 1,
          gatewayCost: null,
          gatewayCostProfiles: [],
          unstatedRequests: 1,
        },
      ]);
      expect((await reads().spendByDay({ ...range, groupBy: 'model' })).map((row) => [row.day, row.group, row.costCredits])).toEqual([
        ['2026-01-14', 'free-model', 0],
        ['2026-01-14', 'gpt-4o', 3],
        ['2026-01-15', 'gpt-4o', 4],
      ]);
      expect((await reads().spendByDay({ ...range, groupBy: 'client' })).map((row) => [row.day, row.group])).toEqual([
        ['2026-01-14', 'cli'],
        ['2026-01-15', 'ide'],
      ]);
      // 10:00 UTC is still the previous day at UTC-11.
      expect((await reads().spendByDay({ ...range, utcOffsetMinutes: -11 * 60, groupBy: null })).map((row) => row.day)).toEqual([
        '2026-01-13',
        '2026-01-14',
      ]);
    });

    it('lists the groups that cost most and sums the rest as one, so a screen of spend stays small', async () => {
      const day = Date.UTC(2026, 0, 14, 10);
      for (const [index, client] of ['a', 'b', 'c', 'd', 'e'].entries())
        emitRequest(temp, { id: `g${index}`, atMs: day + index, clientName: `script-${client}`, inputTokens: index + 1 });
      await temp.log.flush();
      const range = { fromMs: day - DAY_MS, toMs: day + DAY_MS, utcOffsetMinutes: 0 };
      const rows = await reads().spendByDay({ ...range, groupBy: 'client', maxGroups: 2 });
      expect(rows.map((row) => [row.group, row.requests, row.costCredits])).toEqual([
        ['(3 other clients)', 3, 6],
        ['script-d', 1, 4],
        ['script-e', 1, 5],
      ]);
    });

    it('totals a range and reports spend since a moment for budgets', async () => {
      emitRequest(temp, { id: 't1', atMs: TEST_STARTED_AT_MS - 2 * MINUTE_MS, inputTokens: 5, profileId: 'home' });
      emitRequest(temp, { id: 't2', atMs: TEST_STARTED_AT_MS - MINUTE_MS, inputTokens: 6, status: 500 });
      emitRequest(temp, { id: 't3', atMs: TEST_STARTED_AT_MS, inputTokens: 7, model: 'free-model' });
      // Refused before any model answered: no usage and no cost, which is not "unpriced".
      temp.events.emit(startEvent('t4', { startedAtMs: TEST_STARTED_AT_MS }));
      temp.events.emit(endEvent('t4', { status: 429, errorClass: 'budget_exceeded', usage: null, usageSource: null, costCredits: null }));
      await temp.log.flush();

      expect(await reads().totals({ fromMs: 0, toMs: TEST_STARTED_AT_MS + 1 })).toEqual({
        requests: 4,
        errors: 2,
        costCredits: 11,
        unpricedRequests: 1,
        inputTokens: 18,
        outputTokens: 3,
        cachedInputTokens: 0,
        reasoningTokens: 0,
      });
      expect((await reads().totals({ fromMs: 0, toMs: TEST_STARTED_AT_MS + 1, profileId: 'home' })).requests).toBe(1);
      expect(temp.log.spendSince({ sinceMs: TEST_STARTED_AT_MS - MINUTE_MS })).toBe(6);
      expect(temp.log.spendSince({ sinceMs: 0, profileId: 'work' })).toBe(6);
      expect(temp.log.spendSince({ sinceMs: 0, clientName: 'nobody' })).toBe(0);
    });
  });
});
