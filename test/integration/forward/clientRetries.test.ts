import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SpendGate } from '../../../proxy/contracts/ports.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness, type HarnessOptions } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

/**
 * Retries never multiply (issue 18, items 5 and 10): with the SDKs' default retries, the gateway
 * gets no more requests behind one failure through Airlock than from the SDK directly, and
 * Airlock's own refusals are answered once, not retried by the SDK.
 */

const ROUTES = { modelRoutes: [{ pattern: 'claude-*', target: 'deepseek-chat' }] };
let harness: Harness | null = null;
let direct: GatewaySimulator | null = null;
afterEach(async () => {
  await harness?.close();
  await direct?.close();
  harness = null;
  direct = null;
});

const openai = (baseURL: string, apiKey = 'client-token') => new OpenAI({ baseURL, apiKey });
const anthropic = (baseURL: string, apiKey = 'client-token') => new Anthropic({ baseURL, apiKey });

const chatWith = (client: OpenAI) => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const messageWith = (client: Anthropic) =>
  client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });

async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    return (error as { status?: number }).status ?? 0;
  }
}

const rateLimits = (count: number) => Array.from({ length: count }, () => ({ kind: 'status' as const, status: 429, retryAfterS: 1 }));

describe('one failure the user sees costs no more upstream requests than without Airlock (item 10)', () => {
  it.each([
    ['openai', (url: string, key?: string) => chatWith(openai(`${url}/v1`, key))],
    ['anthropic', (url: string, key?: string) => messageWith(anthropic(url, key))],
  ])(
    'the %s SDK against a gateway that keeps answering 429',
    async (_sdk, call) => {
      direct = await startGatewaySimulator({ models: ['deepseek-chat', 'gpt-4o-mini'] });
      direct.script(...rateLimits(10));
      // The Anthropic SDK straight at an OpenAI gateway still meets its 429s, which is all that is counted here.
      expect(await statusOf(call(direct.url, SENTINEL_KEY))).toBe(429);
      const withoutAirlock = direct.received.length;

      harness = await startHarness({ profile: ROUTES });
      harness.simulator.script(...rateLimits(10));
      expect(await statusOf(call(harness.proxy.url))).toBe(429);
      expect(harness.simulator.received.length).toBeLessThanOrEqual(withoutAirlock);
      expect(harness.simulator.received).toHaveLength(3);
    },
    30_000,
  );
});

describe('a client on the AI SDK, which retries 408, 409, 429 and 5xx by itself (maxRetries 2)', () => {
  it('gets the 429 at once: Airlock adds no retries of its own behind each of its attempts', async () => {
    harness = await startHarness({ profile: ROUTES });
    harness.simulator.script(...rateLimits(4));
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'user-agent': 'ai-sdk/openai-compatible/1.0.19 ai-sdk/provider-utils/3.0.10 runtime/node.js/24' },
      body: chatBody(),
    });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('1');
    expect(harness.simulator.received).toHaveLength(1);
  });
});

async function withGate(options: HarnessOptions, gate: SpendGate): Promise<Harness> {
  harness = await startHarness({ ...options, profile: { ...ROUTES, ...options.profile }, spendGate: gate });
  return harness;
}

/** The requests the proxy answered: one per SDK attempt, whether or not it went upstream. */
const attempts = (proxy: Harness): number => proxy.events.filter((event) => event.type === 'end').length;

describe("Airlock's own refusals are answered once, and the SDKs stop (item 5)", () => {
  it.each([
    ['openai', (url: string) => chatWith(openai(`${url}/v1`))],
    ['anthropic', (url: string) => messageWith(anthropic(url))],
  ])('a reached budget cap stops the %s SDK at once', async (_sdk, call) => {
    const gate = createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined });
    const prices = ['gpt-4o-mini', 'deepseek-chat'].map((model) => ({ model, inputPer1M: 1_000_000, outputPer1M: 1_000_000 }));
    const proxy = await withGate({ profile: { budget: { dailyCredits: 0.5 }, prices } }, gate);
    expect(await statusOf(call(proxy.proxy.url))).toBe(402);
    expect(attempts(proxy)).toBe(1);
    expect(proxy.simulator.received).toHaveLength(0);
  });

  it.each([
    ['openai', (url: string) => chatWith(openai(`${url}/v1`))],
    ['anthropic', (url: string) => messageWith(anthropic(url))],
  ])('a paused client stops the %s SDK at once', async (_sdk, call) => {
    const gate = createSpendGate({
      commandHint: PLAIN_HINT,
      ledger: new SpendLedger(),
      clientBudget: () => undefined,
      burstGuard: { maxRequests: 1 },
    });
    const proxy = await withGate({}, gate);
    expect(await statusOf(call(proxy.proxy.url))).toBe(200);
    expect(await statusOf(call(proxy.proxy.url))).toBe(403);
    expect(attempts(proxy)).toBe(2);
  });

  it.each([
    ['openai', (url: string) => chatWith(openai(`${url}/v1`))],
    ['anthropic', (url: string) => messageWith(anthropic(url))],
  ])('a rejected key, then the open breaker, stop the %s SDK at once', async (_sdk, call) => {
    const gate = createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined });
    const proxy = await withGate({}, gate);
    proxy.simulator.script({ kind: 'status', status: 401 });
    expect(await statusOf(call(proxy.proxy.url))).toBe(401);
    expect(await statusOf(call(proxy.proxy.url))).toBe(403);
    expect(attempts(proxy)).toBe(2);
    expect(proxy.simulator.received).toHaveLength(1);
  });
});

/**
 * A gateway that is itself a proxy may already have retried and say so: Free Claude Code answers
 * `x-should-retry: false` once its own retries are spent (earendil-works/pi #6586), and the OpenAI
 * and Anthropic SDKs obey the header before looking at the status (shouldRetry in their client.js).
 * Azure OpenAI states its wait as `retry-after-ms` (Azure/azure-openai-benchmark #31, microsoft/kernel-memory
 * #795), which both SDKs read before Retry-After (retryRequest).
 */
describe("the gateway's own word on retrying", () => {
  const spentOverload = () =>
    ({
      kind: 'text',
      status: 503,
      contentType: 'application/json',
      text: JSON.stringify({ error: { message: 'upstream overloaded; retries exhausted', type: 'server_error' } }),
      headers: { 'x-should-retry': 'false' },
    }) as const;

  it('x-should-retry: false on a 503 is not retried by Airlock, and the client is told the same', async () => {
    harness = await startHarness({ profile: { ...ROUTES, retry: { maxRetries: 1, maxRetryAfterMs: 8000 } } });
    harness.simulator.script(spentOverload(), spentOverload());
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'user-agent': 'curl/8.5.0' },
      body: chatBody(),
    });
    expect(response.status).toBe(503);
    expect(response.headers['x-should-retry']).toBe('false');
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('the OpenAI SDK stops after the one request it would have sent without Airlock', async () => {
    direct = await startGatewaySimulator({ models: ['gpt-4o-mini'] });
    direct.script(spentOverload(), spentOverload(), spentOverload());
    expect(await statusOf(chatWith(openai(`${direct.url}/v1`, SENTINEL_KEY)))).toBe(503);
    expect(direct.received).toHaveLength(1);

    harness = await startHarness({ profile: ROUTES });
    harness.simulator.script(spentOverload(), spentOverload(), spentOverload());
    expect(await statusOf(chatWith(openai(`${harness.proxy.url}/v1`)))).toBe(503);
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('a 429 whose retry-after-ms is past maxRetryAfterMs goes to the client at once, with that header', async () => {
    harness = await startHarness({ profile: { ...ROUTES, retry: { maxRetries: 1, maxRetryAfterMs: 8000 } } });
    const limited = {
      kind: 'text',
      status: 429,
      contentType: 'application/json',
      text: JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }),
      headers: { 'retry-after-ms': '30000' },
    } as const;
    harness.simulator.script(limited, limited);
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after-ms']).toBe('30000');
    expect(harness.simulator.received).toHaveLength(1);
  });
});

describe("a client that leaves while Airlock waits out the gateway's Retry-After", () => {
  it('sends nothing more upstream, and the request no longer holds its budget', async () => {
    const gate = createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined });
    const prices = [{ model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 1 }];
    const proxy = await withGate(
      { profile: { budget: { dailyCredits: 100 }, prices, retry: { maxRetries: 3, maxRetryAfterMs: 60_000 } } },
      gate,
    );
    proxy.simulator.script({ kind: 'status', status: 429, retryAfterS: 50 }, { kind: 'status', status: 429, retryAfterS: 50 });
    const ended = proxy.nextEnd();
    const req = request(`${proxy.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS });
    req.on('error', () => undefined);
    req.end(chatBody());
    await vi.waitFor(() => expect(proxy.simulator.received).toHaveLength(1));
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'test' })).toBeGreaterThan(0);
    req.destroy();
    const end = await ended;
    expect(end.errorClass).toBe('client_aborted');
    expect(proxy.simulator.received).toHaveLength(1);
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'test' })).toBe(0);
  });
});

describe('a wait that would outlast the total timeout', () => {
  it("is not begun: the client gets the gateway's 429 and its Retry-After now, not a timeout when the total time runs out", async () => {
    harness = await startHarness({
      profile: { ...ROUTES, retry: { maxRetries: 3, maxRetryAfterMs: 8000 }, timeouts: { totalTimeoutMs: 1000 } },
    });
    harness.simulator.script({ kind: 'status', status: 429, retryAfterS: 5 }, { kind: 'status', status: 429, retryAfterS: 5 });
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('5');
    expect(harness.simulator.received).toHaveLength(1);
  });
});
