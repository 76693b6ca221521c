import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestPage } from '../../../proxy/contracts/requests.ts';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';

/** A cheap model: a short chat costs a few tenths of a millionth of a credit. */
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 0.01, outputPer1M: 0.02 };
const REQUESTS = 20;

let harness: ControlHarness;
let clientToken = '';

async function control<T>(pathAndQuery: string, method = 'GET', body?: unknown): Promise<T> {
  const response = await harness.api(pathAndQuery, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  expect(response.ok, `${method} ${pathAndQuery}: ${text}`).toBe(true);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

beforeAll(async () => {
  harness = await startControlHarness();
  await control('/profiles', 'POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl });
  await control('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await control('/profiles/main/activate', 'POST', {});
  await control('/profiles/main/prices', 'PUT', { prices: [PRICE], priceMultiplier: 1 });
  clientToken = (await control<TokenSecretResponse>('/tokens', 'POST', { name: 'agent' })).token;
});
afterAll(async () => {
  await harness?.close();
});

describe('the cost of small requests', () => {
  it('is logged and summed unrounded, and the window reads it', async () => {
    for (let index = 0; index < REQUESTS; index += 1) {
      const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
        body: chatBody(),
      });
      expect(reply.status, reply.body).toBe(200);
    }
    await harness.log.flush();

    const rows = (await control<RequestPage>('/requests?limit=100')).items;
    expect(rows).toHaveLength(REQUESTS);
    let expectedCredits = 0;
    for (const row of rows) {
      const exact = ((row.inputTokens ?? 0) * PRICE.inputPer1M + (row.outputTokens ?? 0) * PRICE.outputPer1M) / 1_000_000;
      // Under 5e-7 credits: rounded to 1e-6, each was logged as 0.
      expect(exact).toBeLessThan(5e-7);
      expect(row.costCredits).toBeCloseTo(exact, 15);
      expect(row.costCredits).toBeGreaterThan(0);
      expectedCredits += exact;
    }
    const status = await control<StatusResponse>('/status');
    expect(status.todaySpend.credits).toBeCloseTo(expectedCredits, 15);
    expect(status.todaySpend.cny).toBeGreaterThan(0);
    expect(harness.spendGate.ledger.totals({ kind: 'profile', profileId: 'main' }, Date.now()).dayCredits).toBeCloseTo(expectedCredits, 15);
  });
});
