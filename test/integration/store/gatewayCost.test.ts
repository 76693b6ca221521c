import { afterEach, describe, expect, it } from 'vitest';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { detailOf } from '../../../proxy/app/control/mapping.ts';

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
