import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpendResponse } from '../../../../proxy/contracts/spend.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

let harness: ControlHarness;

const call = <T>(pathAndQuery: string, init: RequestInit = {}): Promise<T> => harness.json<T>(pathAndQuery, init);
const send = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

beforeAll(async () => {
  harness = await startControlHarness();
  await call('/profiles', send('POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }));
  await call('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
  await call(
    '/profiles/main/prices',
    send('PUT', { prices: [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 2000 }], priceMultiplier: 1 }),
  );
});
afterAll(async () => {
  await harness?.close();
});

describe('budget alerts through the real proxy', () => {
  it('the window status warns at 50% and 80% of a daily cap and reports it reached at 100%', async () => {
    const { token } = await call<TokenSecretResponse>('/tokens', send('POST', { name: 'budget-client' }));
    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(reply.status).toBe(200);
    await harness.log.flush();
    const spent = (await call<SpendResponse>('/spend?range=7d')).totals.today.credits;
    expect(spent).toBeGreaterThan(0);

    const alarmsWithCap = async (dailyCredits: number) => {
      await call('/profiles/main', send('PUT', { name: 'Main', baseUrl: harness.simulator.baseUrl, budget: { dailyCredits } }));
      const status = await call<StatusResponse>('/status');
      return status.alarms.filter((alarm) => alarm.kind.startsWith('budget')).map((alarm) => [alarm.kind, alarm.profileId, alarm.message]);
    };

    expect(await alarmsWithCap(spent * 4)).toEqual([]);
    expect(await alarmsWithCap(spent / 0.6)).toEqual([
      [
        'budget_warning',
        'main',
        expect.stringMatching(
          /^Profile main has used 50% of its daily budget \(.+ credits today\); at the cap its requests are refused\.$/,
        ),
      ],
    ]);
    expect(await alarmsWithCap(spent / 0.9)).toEqual([
      ['budget_warning', 'main', expect.stringContaining('has used 80% of its daily budget')],
    ]);
    expect(await alarmsWithCap(spent)).toEqual([['budget_reached', 'main', expect.stringContaining('is reached')]]);
    const spend = await call<SpendResponse>('/spend?range=7d');
    expect(spend.budgets).toEqual([expect.objectContaining({ period: 'daily', alertPercent: 100, reached: true })]);
  });
});
