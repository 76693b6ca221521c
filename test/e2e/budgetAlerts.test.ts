import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpendResponse } from '../../proxy/contracts/spend.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;

beforeAll(async () => {
  session = await openWindowSession();
});
afterAll(async () => {
  await session?.close();
});

describe('budget alerts in the window', () => {
  it('the status bar warns once a cap is 50% used, before it is reached', async () => {
    const { harness, page } = session;
    const put = (path: string, body: unknown) => harness.api(path, { method: 'PUT', body: JSON.stringify(body) });
    await put('/profiles/main/prices', { prices: [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 2000 }], priceMultiplier: 1 });
    const token = await createClientToken(harness, 'budget-e2e');
    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody({ model: 'gpt-4o-mini' }),
    });
    expect(reply.status).toBe(200);
    await harness.log.flush();
    const spent = ((await (await harness.api('/spend?range=7d')).json()) as SpendResponse).totals.today.credits;
    expect(
      (await put('/profiles/main', { name: 'Main gateway', baseUrl: harness.simulator.baseUrl, budget: { dailyCredits: spent / 0.6 } }))
        .status,
    ).toBe(200);

    await page.goto(session.screenUrl('live'));
    const alarms = page.getByRole('alert', { name: 'Alarms' });
    await alarms.getByText(/Profile main has used 50% of its daily budget/).waitFor();
    await session.shot('62-budget-warning');
  });
});
