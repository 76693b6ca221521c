import { afterEach, describe, expect, it } from 'vitest';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/**
 * A price list keyed by the names a client sends (Anthropic's or OpenAI's own list), and an alias
 * to the id the gateway knows the model by: the request is the aliased model's, and so is its price.
 */
const ALIASED = {
  modelAliases: { 'claude-sonnet-4-5': 'gpt-4o-mini' },
  prices: [{ model: 'claude-sonnet-4-5', inputPer1M: 3, outputPer1M: 15 }],
};

describe('a model priced under the alias a client sends', () => {
  it("is priced at the alias's price when the gateway's id has none", async () => {
    harness = await startHarness({ profile: ALIASED });
    const ended = harness.nextEnd();
    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: 'claude-sonnet-4-5' }),
    });
    expect(reply.status).toBe(200);
    const end = await ended;
    const { inputTokens, outputTokens } = end.usage!;
    expect(end.costCredits).toBeCloseTo((inputTokens * 3 + outputTokens * 15) / 1e6, 12);
  });

  it("counts against caps before sending, at the alias's price", async () => {
    harness = await startHarness({
      profile: { ...ALIASED, budget: { perRequestInputCredits: 0.000001 } },
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'a long question '.repeat(50) }] }),
    });
    expect(reply.status, reply.body).toBe(402);
    expect(harness.simulator.received).toHaveLength(0);
  });

  it("keeps the gateway id's own price where it has one", async () => {
    harness = await startHarness({
      profile: { ...ALIASED, prices: [...ALIASED.prices, { model: 'gpt-4o-mini', inputPer1M: 0.15, outputPer1M: 0.6 }] },
    });
    const ended = harness.nextEnd();
    await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: 'claude-sonnet-4-5' }),
    });
    const end = await ended;
    const { inputTokens, outputTokens } = end.usage!;
    expect(end.costCredits).toBeCloseTo((inputTokens * 0.15 + outputTokens * 0.6) / 1e6, 12);
  });
});
