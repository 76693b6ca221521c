import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputTokensUpperBound } from '../../../proxy/spend/estimate.ts';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';

let harness: ControlHarness;
let clientToken = '';

const INPUT_PER_1M = 100;
/** About 2,000 tokens counted, while the upper bound (its bytes) is about 10,000. */
const BODY = chatBody({ messages: [{ role: 'user', content: 'word '.repeat(2_000) }] });
const BOUND_CREDITS = (inputTokensUpperBound(JSON.parse(BODY)) * INPUT_PER_1M) / 1_000_000;
/** Room for one request held at its bound, but not for that bound plus a second request's count. */
const DAILY_CAP = Number((BOUND_CREDITS * 1.1).toFixed(4));

async function control(pathAndQuery: string, method: string, body: unknown): Promise<unknown> {
  const response = await harness.api(pathAndQuery, { method, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.ok, `${method} ${pathAndQuery}: ${text}`).toBe(true);
  return text === '' ? undefined : JSON.parse(text);
}

const chat = (): Promise<RawResponse> =>
  rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: BODY,
  });

const heldCredits = (): number => harness.spendGate.reservations.reservedCredits({ kind: 'profile', profileId: 'main' });

beforeAll(async () => {
  harness = await startControlHarness();
  await control('/profiles', 'POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl, budget: { dailyCredits: DAILY_CAP } });
  await control('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await control('/profiles/main/activate', 'POST', {});
  await control('/profiles/main/prices', 'PUT', {
    prices: [{ model: 'gpt-4o-mini', inputPer1M: INPUT_PER_1M, outputPer1M: INPUT_PER_1M }],
    priceMultiplier: 1,
  });
  clientToken = ((await control('/tokens', 'POST', { name: 'agent' })) as TokenSecretResponse).token;
});

afterAll(async () => {
  await harness?.close();
});

describe('a request admitted on its upper bound near a cap', () => {
  it('has its hold lowered to the count, so a parallel request fits under the cap', async () => {
    // The gateway holds the first answer until the second request has been judged.
    const secondJudged = Promise.withResolvers<void>();
    harness.simulator.script({ kind: 'holdHeaders', until: secondJudged.promise });
    const first = chat();
    // Held at the bound first, then at the count once the tokenizer thread has counted.
    await expect.poll(() => heldCredits() > 0 && heldCredits() < BOUND_CREDITS / 2).toBe(true);

    // At the first one's bound, this one's count would not fit: 402, as it was before the hold was lowered.
    const second = await chat();
    secondJudged.resolve();
    expect(second.status, second.body).toBe(200);
    expect((await first).status).toBe(200);
    expect(harness.simulator.received.filter((received) => received.path === '/v1/chat/completions')).toHaveLength(2);
  });
});
