import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endEvent, startEvent, TEST_STARTED_AT_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { READ_PATHS } from './readPaths.ts';
import type { WindowReads } from '../../../proxy/store/read/windowReads.ts';
import { detailOf } from '../../../proxy/app/control/mapping.ts';
import { daysByModel, sumByGroup } from '../../../proxy/app/control/spend.ts';
import { spendCsv } from '../../../proxy/app/export/csv.ts';

const DAY_MS = 86_400_000;

let temp: TempLog | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

/** The reads under test: the reader thread's (READ_PATHS), chosen by the run below. */
let reads: () => WindowReads;

describe.each(READ_PATHS)('%s', (_path, readsOf) => {
  beforeEach(() => {
    reads = () => readsOf((temp as TempLog).log);
  });

  describe("the gateway's stated charge on the row", () => {
    it("is kept beside Airlock's price and reaches the request's detail; a gateway stating none leaves it null", async () => {
      temp = openTempLog();
      temp.events.emit(startEvent('stated'));
      temp.events.emit(endEvent('stated', { usage: { inputTokens: 10, outputTokens: 5, gatewayCost: 0.00042 }, costCredits: 0.25 }));
      temp.events.emit(startEvent('silent'));
      temp.events.emit(endEvent('silent'));
      await temp.log.flush();

      const stated = await reads().getRequest('stated');
      expect(stated?.row).toMatchObject({ costCredits: 0.25, gatewayCost: 0.00042 });
      expect(detailOf(stated!)).toMatchObject({ costCredits: 0.25, gatewayCost: 0.00042 });
      expect(detailOf((await reads().getRequest('silent'))!).gatewayCost).toBeNull();
    });
  });

  describe("the gateway's stated charge in the spend per day and model", () => {
    it('is summed in its own unit apart from the credits, with the answered requests that came without one counted', async () => {
      temp = openTempLog();
      const seed = (id: string, model: string, overrides: Parameters<typeof endEvent>[1]) => {
        temp!.events.emit(startEvent(id, { requestedModel: model, upstreamModel: model }));
        temp!.events.emit(endEvent(id, { responseModel: model, ...overrides }));
      };
      const stated = (gatewayCost: number) => ({ usage: { inputTokens: 10, outputTokens: 5, gatewayCost } });
      seed('a1', 'alpha', { ...stated(0.0003), costCredits: 0.25 });
      seed('a2', 'alpha', { ...stated(0.0004), costCredits: 0.5 });
      // Answered, and the gateway said nothing of its charge: the sum above leaves it out.
      seed('a3', 'alpha', { costCredits: 0.25 });
      // Refused before any model ran: nothing to state, so not counted as missing a statement.
      seed('a4', 'alpha', { status: 429, errorClass: 'budget_exceeded', usage: null, usageSource: null, costCredits: null });
      seed('b1', 'beta', { costCredits: 1 });
      await temp.log.flush();

      const rows = await reads().spendByDay({ fromMs: TEST_STARTED_AT_MS - DAY_MS, toMs: TEST_STARTED_AT_MS + DAY_MS, groupBy: 'model' });
      expect(
        rows.map(({ group, costCredits, gatewayCost, unstatedRequests }) => ({ group, costCredits, gatewayCost, unstatedRequests })),
      ).toEqual([
        { group: 'alpha', costCredits: 1, gatewayCost: expect.closeTo(0.0007, 12), unstatedRequests: 1 },
        // No statement at all: no sum (null, never 0), and the answered request said as without one.
        { group: 'beta', costCredits: 1, gatewayCost: null, unstatedRequests: 1 },
      ]);
    });
  });

  describe("the gateway's stated charges of two profiles", () => {
    it('are never added into one figure: each row names the profiles whose units it holds, and a mixed one shows no sum', async () => {
      temp = openTempLog();
      const seed = (id: string, profileId: string, gatewayCost: number) => {
        temp!.events.emit(startEvent(id, { profileId, requestedModel: 'alpha', upstreamModel: 'alpha' }));
        temp!.events.emit(
          endEvent(id, { responseModel: 'alpha', usage: { inputTokens: 10, outputTokens: 5, gatewayCost }, costCredits: 0.25 }),
        );
      };
      // OpenRouter states credits, LiteLLM states USD: two units.
      seed('o1', 'openrouter', 0.002);
      seed('l1', 'litellm', 0.0004);
      seed('l2', 'litellm', 0.0001);
      await temp.log.flush();
      const range = { fromMs: TEST_STARTED_AT_MS - DAY_MS, toMs: TEST_STARTED_AT_MS + DAY_MS };

      const [byModel] = await reads().spendByDay({ ...range, groupBy: 'model' });
      expect(byModel?.gatewayCostProfiles).toEqual(['litellm', 'openrouter']);
      const [modelRow] = sumByGroup(await reads().spendByDay({ ...range, groupBy: 'model' }));
      expect(modelRow).toMatchObject({ gatewayCost: null, gatewayCostMixed: true });
      const [day] = daysByModel(await reads().spendByDay({ ...range, groupBy: 'model' }));
      expect(day).toMatchObject({ gatewayCost: null, gatewayCostMixed: true });
      const csv = spendCsv(await reads().spendByDay({ ...range, groupBy: 'model' }), 'model');
      expect(csv).not.toContain('0.0025');

      // Per profile each figure is one gateway's, in its unit.
      const byProfile = sumByGroup(await reads().spendByDay({ ...range, groupBy: 'profile' }));
      expect(byProfile.map(({ key, gatewayCost, gatewayCostMixed }) => ({ key, gatewayCost, gatewayCostMixed }))).toEqual([
        { key: 'litellm', gatewayCost: expect.closeTo(0.0005, 12), gatewayCostMixed: false },
        { key: 'openrouter', gatewayCost: 0.002, gatewayCostMixed: false },
      ]);
    });
  });
});
