import { afterEach, describe, expect, it } from 'vitest';
import { TOKENIZE_LIMIT_CHARS, byteEstimateTokens } from '../../../proxy/spend/estimate.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/**
 * A long system prompt marked for Anthropic's prompt cache (`cache_control`, as LiteLLM and
 * OpenRouter pass it on in a chat body): the gateway may write all of it to the cache, at 1.25x the
 * input price for 5 minutes and 2x for an hour. Past the tokenizer's limit, so its input is its
 * bytes / 3 (no count lowers the hold while the test runs).
 */
function markedBody(cacheControl: { type: string; ttl?: string } | null): string {
  const text = 'The lighthouse keeper logs the lamp, the weather and every passing ship. '.repeat(4000);
  const system = { type: 'text', text, ...(cacheControl ? { cache_control: cacheControl } : {}) };
  return JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: [system] },
      { role: 'user', content: 'hi' },
    ],
  });
}

describe.each([
  { name: 'a 1-hour cache write', cacheControl: { type: 'ephemeral', ttl: '1h' } },
  { name: 'a 5-minute cache write', cacheControl: { type: 'ephemeral' } },
])('a running request that asks for $name, under a daily cap', ({ cacheControl }) => {
  it('holds its input at the write price, so a second one the cap has no room for beside it is refused', async () => {
    const body = markedBody(cacheControl);
    expect(body.length).toBeGreaterThan(TOKENIZE_LIMIT_CHARS);
    const inputPer1M = 1;
    const plainCredits = (byteEstimateTokens(Buffer.byteLength(body)) * inputPer1M) / 1e6;
    harness = await startHarness({
      // Room for two held at the plain input price, not for two held at the 5-minute write price (1.25x).
      profile: { budget: { dailyCredits: plainCredits * 2.2 }, prices: [{ model: 'gpt-4o-mini', inputPer1M }] },
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    const held = harness.simulator.holdNext('/chat/completions');
    const send = () => rawRequest(`${harness!.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    const first = send();
    await held.arrived;
    const second = await send();
    expect(second.status, second.body).toBe(402);
    held.release();
    expect((await first).status).toBe(200);
    expect(harness.simulator.received).toHaveLength(1);
  });
});

describe('a running request with no cache marker, under the same cap', () => {
  it('holds its input at the input price: a second one fits beside it', async () => {
    const body = markedBody(null);
    const plainCredits = (byteEstimateTokens(Buffer.byteLength(body)) * 1) / 1e6;
    harness = await startHarness({
      profile: { budget: { dailyCredits: plainCredits * 2.2 }, prices: [{ model: 'gpt-4o-mini', inputPer1M: 1 }] },
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    const held = harness.simulator.holdNext('/chat/completions');
    const send = () => rawRequest(`${harness!.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    const first = send();
    await held.arrived;
    expect((await send()).status).toBe(200);
    held.release();
    expect((await first).status).toBe(200);
  });
});
