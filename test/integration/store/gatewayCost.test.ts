import { afterEach, describe, expect, it } from 'vitest';
import { endEvent, startEvent, TEST_STARTED_AT_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { detailOf } from '../../../proxy/app/control/mapping.ts';

const DAY_MS = 86_400_000;

let temp: TempLog | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

describe("the gateway's stated charge on the row", () => {
  it("is kept beside Airlock's price and reaches the request's detail; a gateway stating none leaves it null", async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('stated'));
    temp.events.emit(endEvent('stated', { usage: { inputTokens: 10, outputTokens: 5, gatewayCost: 0.00042 }, costCredits: 0.25 }));
    temp.events.emit(startEvent('silent'));
    temp.events.emit(endEvent('silent'));
    await temp.log.flush();

    const stated = temp.log.getRequest('stated');
    expect(stated?.row).toMatchObject({ costCredits: 0.25, gatewayCost: 0.00042 });
    expect(detailOf(stated!)).toMatchObject({ costCredits: 0.25, gatewayCost: 0.00042 });
    expect(detailOf(temp.log.getRequest('silent')!).gatewayCost).toBeNull();
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

    const rows = temp.log.spendByDay({ fromMs: TEST_STARTED_AT_MS - DAY_MS, toMs: TEST_STARTED_AT_MS + DAY_MS, groupBy: 'model' });
    expect(
      rows.map(({ group, costCredits, gatewayCost, unstatedRequests }) => ({ group, costCredits, gatewayCost, unstatedRequests })),
    ).toEqual([
      { group: 'alpha', costCredits: 1, gatewayCost: expect.closeTo(0.0007, 12), unstatedRequests: 1 },
      // No statement at all: no sum (null, never 0), and the answered request said as without one.
      { group: 'beta', costCredits: 1, gatewayCost: null, unstatedRequests: 1 },
    ]);
  });
});
