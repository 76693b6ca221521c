import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpendGate } from '../../../proxy/contracts/ports.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { startHarness, type Harness, type HarnessOptions } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

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
    const gate = createSpendGate({ ledger: new SpendLedger(), clientBudget: () => undefined });
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
    const gate = createSpendGate({ ledger: new SpendLedger(), clientBudget: () => undefined, burstGuard: { maxRequests: 1 } });
    const proxy = await withGate({}, gate);
    expect(await statusOf(call(proxy.proxy.url))).toBe(200);
    expect(await statusOf(call(proxy.proxy.url))).toBe(403);
    expect(attempts(proxy)).toBe(2);
  });

  it.each([
    ['openai', (url: string) => chatWith(openai(`${url}/v1`))],
    ['anthropic', (url: string) => messageWith(anthropic(url))],
  ])('a rejected key, then the open breaker, stop the %s SDK at once', async (_sdk, call) => {
    const gate = createSpendGate({ ledger: new SpendLedger(), clientBudget: () => undefined });
    const proxy = await withGate({}, gate);
    proxy.simulator.script({ kind: 'status', status: 401 });
    expect(await statusOf(call(proxy.proxy.url))).toBe(401);
    expect(await statusOf(call(proxy.proxy.url))).toBe(403);
    expect(attempts(proxy)).toBe(2);
    expect(proxy.simulator.received).toHaveLength(1);
  });
});
