import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';

let harness: ControlHarness;
let clientToken = '';

async function control(pathAndQuery: string, method: string, body: unknown): Promise<unknown> {
  const response = await harness.api(pathAndQuery, { method, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.ok, `${method} ${pathAndQuery}: ${text}`).toBe(true);
  return text === '' ? undefined : JSON.parse(text);
}

const setBudget = (budget: object) => control('/profiles/main', 'PUT', { name: 'Main', baseUrl: harness.simulator.baseUrl, budget });

/** About 2,000 input tokens: 0.2 credits at 100 credits per 1M input tokens. */
const LARGE_PROMPT = 'word '.repeat(2_000);

const chat = (content = 'hello', options: { fields?: Record<string, unknown>; contentType?: string } = {}): Promise<RawResponse> =>
  rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': options.contentType ?? JSON_HEADERS['content-type'], authorization: `Bearer ${clientToken}` },
    body: chatBody({ messages: [{ role: 'user', content }], ...options.fields }),
  });

/** The profile's spend today as the caps count it: a cap set this far above it leaves exactly that much room. */
const spentToday = (): number => harness.spendGate.ledger.totals({ kind: 'profile', profileId: 'main' }, Date.now()).dayCredits;

const chatCalls = (): number => harness.simulator.received.filter((received) => received.path === '/v1/chat/completions').length;

beforeAll(async () => {
  harness = await startControlHarness();
  await control('/profiles', 'POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl });
  await control('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await control('/profiles/main/activate', 'POST', {});
  await control('/profiles/main/prices', 'PUT', {
    prices: [{ model: 'gpt-4o-mini', inputPer1M: 100, outputPer1M: 100 }],
    priceMultiplier: 1,
  });
  clientToken = ((await control('/tokens', 'POST', { name: 'agent' })) as TokenSecretResponse).token;
});
afterAll(async () => {
  await harness?.close();
});

describe('budgets over the real proxy', () => {
  it('holds the output each running request may write, so parallel streams cannot together cross the cap by it', async () => {
    // First in the file, before any spend today. max_tokens 2,000 at 100 credits per 1M output: 0.2 credits held per request, with a few
    // thousandths of input, against 0.5 credits: the third still fits beside two, the fourth does not.
    await setBudget({ dailyCredits: 0.5 });
    harness.simulator.reset();
    const allJudged = Promise.withResolvers<void>();
    harness.simulator.script(...Array.from({ length: 5 }, () => ({ kind: 'holdHeaders' as const, until: allJudged.promise })));
    let answered = 0;
    const pending = Array.from({ length: 5 }, () => chat('hello', { fields: { max_tokens: 2_000 } }).finally(() => (answered += 1)));
    await expect.poll(() => answered + chatCalls()).toBe(5);
    allJudged.resolve();
    const replies = await Promise.all(pending);

    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 402, 402]);
    expect(chatCalls()).toBe(3);
  });

  // Continue's autocomplete and FIM tools send many at once to the legacy endpoint; OpenAI's reference bills `best_of`
  // completions per request, of which `n` are returned (platform.openai.com/docs/api-reference/completions/create).
  it.each([
    ['max_tokens', { max_tokens: 2_000 }, [200, 200, 200, 402, 402], 3],
    ['max_tokens times best_of', { max_tokens: 1_000, n: 1, best_of: 2 }, [200, 200, 200, 402, 402], 3],
  ])("holds a legacy completion's %s the same way", async (_name, limits, statuses, calls) => {
    await setBudget({ dailyCredits: spentToday() + 0.5 });
    harness.simulator.reset();
    const allJudged = Promise.withResolvers<void>();
    harness.simulator.script(...Array.from({ length: 5 }, () => ({ kind: 'holdHeaders' as const, until: allJudged.promise })));
    let answered = 0;
    const pending = Array.from({ length: 5 }, () =>
      rawRequest(`${harness.proxy.url}/v1/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', prompt: 'def add(a, b):', ...limits }),
      }).finally(() => (answered += 1)),
    );
    const completionCalls = (): number => harness.simulator.received.filter((received) => received.path === '/v1/completions').length;
    await expect.poll(() => answered + completionCalls()).toBe(5);
    allJudged.resolve();
    const replies = await Promise.all(pending);

    expect(replies.map((reply) => reply.status).sort()).toEqual(statuses);
    expect(completionCalls()).toBe(calls);
  });

  // The user sets a cap to stop a spend that is running: what those requests may still write counts at once.
  it('counts what requests admitted before any cap may still write, once a cap is set while they run', async () => {
    await setBudget({});
    harness.simulator.reset();
    const released = Promise.withResolvers<void>();
    harness.simulator.script(...Array.from({ length: 6 }, () => ({ kind: 'holdHeaders' as const, until: released.promise })));
    const running = Array.from({ length: 3 }, () => chat('hello', { fields: { max_tokens: 2_000 } }));
    await expect.poll(chatCalls).toBe(3);
    // Room for two of them (0.2 credits each): the three running already pass it.
    await setBudget({ dailyCredits: spentToday() + 0.5 });
    let refused = 0;
    const later = Array.from({ length: 3 }, () => chat('hello', { fields: { max_tokens: 2_000 } }).finally(() => (refused += 1)));
    // Each of the later three is either refused or held at the gateway like the first.
    await expect.poll(() => refused + chatCalls()).toBe(6);
    released.resolve();

    expect((await Promise.all(running)).map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect((await Promise.all(later)).map((reply) => reply.status)).toEqual([402, 402, 402]);
    expect(chatCalls()).toBe(3);
  });

  it('lets parallel requests through only as far as their estimates fit under the cap', async () => {
    await setBudget({ dailyCredits: 0.5 });
    harness.simulator.reset();
    // The gateway holds every answer until each of the five was either refused or reached it, so
    // the admitted ones are still running while the others are judged, however slow the machine.
    const allJudged = Promise.withResolvers<void>();
    harness.simulator.script(...Array.from({ length: 5 }, () => ({ kind: 'holdHeaders' as const, until: allJudged.promise })));
    let answered = 0;
    const pending = Array.from({ length: 5 }, () => chat(LARGE_PROMPT).finally(() => (answered += 1)));
    await expect.poll(() => answered + chatCalls()).toBe(5);
    allJudged.resolve();
    const replies = await Promise.all(pending);

    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 402, 402, 402]);
    const refusal = replies.find((reply) => reply.status === 402);
    expect(refusal?.headers['x-airlock-budget']).toBe('daily');
    expect(JSON.parse(refusal?.body ?? '{}').error.message).toMatch(
      /held for requests still running.*Raise or remove budget\.dailyCredits/,
    );
    expect(chatCalls()).toBe(2);
  });

  it('refuses a request over a reached cap locally, with zero upstream calls, and names the cap and the fix', async () => {
    await setBudget({ dailyCredits: 0.1 });
    harness.simulator.reset();
    const reply = await chat();

    expect(reply.status, reply.body).toBe(402);
    expect(reply.headers['x-airlock-budget'], reply.body).toBe('daily');
    // What makes the SDKs and Claude Code show the refusal instead of resending it (README, Spending safeguards).
    expect(reply.headers['x-should-retry']).toBe('false');
    const error = JSON.parse(reply.body).error;
    expect(error.code).toBe('budget_exceeded');
    expect(error.message).toMatch(
      /nothing was sent to the gateway.*daily cap of 0.1 credits for profile 'main' reached.*Raise or remove budget\.dailyCredits/,
    );
    expect(chatCalls()).toBe(0);
  });

  // `curl -d` sends a form, `fetch` with a string body text/plain: the body is the same chat request, and the cap holds for it.
  it.each(['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8'])(
    'refuses a chat body sent as %s over the per-request cap as well',
    async (contentType) => {
      await setBudget({ perRequestInputCredits: 0.05 });
      harness.simulator.reset();
      const reply = await chat(LARGE_PROMPT, { contentType });

      expect(reply.status, reply.body).toBe(402);
      expect(reply.headers['x-airlock-budget']).toBe('per-request');
      expect(chatCalls()).toBe(0);
    },
  );

  it('lets requests through again once the cap is raised, without a restart', async () => {
    await setBudget({ dailyCredits: 1000 });
    harness.simulator.reset();
    expect((await chat()).status).toBe(200);
    expect(chatCalls()).toBe(1);
  });

  // Last: its three running requests spend more than the absolute caps above leave room for.
  it('counts the input of requests admitted before any cap, once a cap is set while they run', async () => {
    await setBudget({});
    harness.simulator.reset();
    const released = Promise.withResolvers<void>();
    harness.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'holdHeaders' as const, until: released.promise })));
    // No output limit stated: what they may cost is their input, about 0.2 credits each (bounded above by its bytes).
    const running = Array.from({ length: 3 }, () => chat(LARGE_PROMPT));
    await expect.poll(chatCalls).toBe(3);
    await setBudget({ dailyCredits: spentToday() + 0.5 });
    let refused = false;
    // A small request beside them: refused, or held at the gateway like them.
    const later = chat('hello').finally(() => (refused = true));
    await expect.poll(() => (refused ? 1 : 0) + chatCalls()).toBe(4);
    released.resolve();

    expect((await Promise.all(running)).map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect((await later).status).toBe(402);
    expect(chatCalls()).toBe(3);
  });
});

describe('burst limits from the config', () => {
  it('pauses a client past the configured requests per minute, and applies an edit to the next request', async () => {
    await setBudget({});
    const burstToken = ((await control('/tokens', 'POST', { name: 'burst' })) as TokenSecretResponse).token;
    const burstChat = (): Promise<RawResponse> =>
      rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${burstToken}` },
        body: chatBody(),
      });
    await harness.store.update((config) => ({
      ...config,
      settings: { ...config.settings, burstLimits: { ...config.settings.burstLimits, maxRequestsPerMinute: 2 } },
    }));
    harness.simulator.reset();
    expect([(await burstChat()).status, (await burstChat()).status]).toEqual([200, 200]);

    await harness.store.update((config) => ({
      ...config,
      settings: { ...config.settings, burstLimits: { ...config.settings.burstLimits, maxRequestsPerMinute: 3 } },
    }));
    expect((await burstChat()).status).toBe(200);
    const refused = await burstChat();

    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toMatch(
      /paused client 'burst'.*4 requests within 60 s \(limit 3\).*`npx airlock resume burst --port \d+`/,
    );
    expect(chatCalls()).toBe(3);
    // Back to the default: the pause stays (it is lifted by a resume only); other clients pass.
    await harness.store.update((config) => ({
      ...config,
      settings: { ...config.settings, burstLimits: { ...config.settings.burstLimits, maxRequestsPerMinute: 120 } },
    }));
    expect((await burstChat()).status).toBe(403);
    expect((await chat()).status).toBe(200);
  });
});
