import { afterEach, describe, expect, it } from 'vitest';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { tokenEstimator } from '../../../proxy/spend/tokenEstimator.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import type { ProfileInput } from '../../../proxy/contracts/profile.ts';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const capped = (profile: Partial<ProfileInput>, clientBudget?: { dailyCredits: number }) =>
  startHarness({
    profile,
    identity: { tokenName: 'agent', pinnedProfileId: null },
    spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => clientBudget }),
  });

const chat = (model: string) =>
  rawRequest(`${harness!.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody({ model }) });

/**
 * A model with no price in the profile costs what no cap can count: before, an agent on it spent
 * without limit under a 5-credit daily cap (its rows "unpriced", the cap never reached).
 */
describe('a model without a price', () => {
  it('is refused under a daily cap, naming the model and how to price it; nothing is sent', async () => {
    harness = await capped({ budget: { dailyCredits: 5 }, prices: [{ model: 'deepseek-chat', inputPer1M: 0.28, outputPer1M: 0.42 }] });
    const reply = await chat('gpt-4o-mini');
    expect(reply.status, reply.body).toBe(402);
    const error = JSON.parse(reply.body).error;
    // Its own class, not budget_exceeded: the window's "budget reached" state is not raised for it.
    expect(error).toMatchObject({ type: 'unpriced_model', code: 'unpriced_model' });
    expect(reply.headers['x-should-retry']).toBe('false');
    expect(error.message).toContain('"gpt-4o-mini" has no price');
    expect(error.message).toContain('daily cap');
    expect(error.message).toContain('0 for a model that costs nothing');
    expect(reply.headers['x-airlock-budget']).toBe('daily');
    expect(harness.simulator.received).toHaveLength(0);
    // Refused at once: its input was not counted first (the tokenizer's thread takes 0.3 s to start).
    expect(tokenEstimator.running).toBe(false);

    // The priced model under the same cap goes as before.
    expect((await chat('deepseek-chat')).status).toBe(200);
  });

  it("is refused under a client token's cap too", async () => {
    harness = await capped({}, { dailyCredits: 5 });
    const reply = await chat('gpt-4o-mini');
    expect(reply.status, reply.body).toBe(402);
    expect(JSON.parse(reply.body).error.message).toContain("client token 'agent'");
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('goes through priced at 0, the statement that it costs nothing', async () => {
    harness = await capped({ budget: { dailyCredits: 5 }, prices: [{ model: 'gpt-4o-mini', inputPer1M: 0, outputPer1M: 0 }] });
    const ended = harness.nextEnd();
    expect((await chat('gpt-4o-mini')).status).toBe(200);
    expect((await ended).costCredits).toBe(0);
  });

  it('goes through unchanged where no cap applies, its row unpriced', async () => {
    harness = await capped({});
    const ended = harness.nextEnd();
    expect((await chat('gpt-4o-mini')).status).toBe(200);
    expect((await ended).costCredits).toBeNull();
  });

  it('does not stop a token count, which runs no model', async () => {
    harness = await capped({ budget: { dailyCredits: 5 }, protocolModes: { messages: 'native', responses: 'auto' } });
    const reply = await rawRequest(`${harness.proxy.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(reply.status, reply.body).not.toBe(402);
  });

  it.each([
    { step: 'unpriced', prices: [], sent: 1 },
    { step: 'priced', prices: [{ model: 'deepseek-chat', inputPer1M: 0.28, outputPer1M: 0.42 }], sent: 2 },
  ])('as a fallback step under the cap ($step) is skipped unsent, or sent when priced', async ({ prices, sent }) => {
    harness = await capped({
      budget: { dailyCredits: 5 },
      prices: [{ model: 'gpt-4o-mini', inputPer1M: 0.15, outputPer1M: 0.6 }, ...prices],
      retry: { maxRetries: 0, maxRetryAfterMs: 8000 },
      fallbacks: [{ model: 'deepseek-chat' }],
    });
    harness.simulator.script({ kind: 'status', status: 503 });
    const ended = harness.nextEnd();
    const reply = await chat('gpt-4o-mini');
    expect(harness.simulator.received.filter((request) => request.method === 'POST')).toHaveLength(sent);
    if (sent === 2) expect(reply.status, reply.body).toBe(200);
    else {
      expect(reply.status, reply.body).toBe(503);
      expect(JSON.stringify((await ended).fallback)).toContain('has no price');
    }
  });

  it("is refused in each client protocol's shape, streamed too, and to Codex as a 400 it does not resend", async () => {
    harness = await capped({ budget: { dailyCredits: 5 } });
    const post = (path: string, body: object, headers: Record<string, string> = {}) =>
      rawRequest(`${harness!.proxy.url}${path}`, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });
    const messages = await post('/v1/messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(messages.status, messages.body).toBe(402);
    expect(JSON.parse(messages.body)).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
    expect(JSON.parse(messages.body).error.message).toContain('"claude-sonnet-4-5" has no price');

    const responses = { model: 'gpt-4o-mini', input: 'hi', stream: true };
    const sdk = await post('/v1/responses', responses);
    expect(sdk.status, sdk.body).toBe(402);
    expect(JSON.parse(sdk.body).error).toMatchObject({ code: 'unpriced_model' });
    const codex = await post('/v1/responses', responses, { originator: 'codex_cli_rs' });
    expect(codex.status, codex.body).toBe(400);
    expect(JSON.parse(codex.body).error.message).toContain('"gpt-4o-mini" has no price');
    for (const reply of [messages, sdk, codex]) expect(JSON.stringify(reply)).not.toContain(SENTINEL_KEY);
    expect(harness.simulator.received).toHaveLength(0);
  });
});
