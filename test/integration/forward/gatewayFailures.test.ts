import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import type { DialectName } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { startHarness, type Harness, type HarnessOptions } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

/**
 * How gateway failures in real gateways' dialects reach a client (issue 18, items 1-4, 7, 11, 12):
 * which class, which status, what goes with it, and whether the auth breaker opens.
 */

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function start(dialect: DialectName, options: HarnessOptions = {}): Promise<Harness> {
  harness = await startHarness({
    ...options,
    simulator: { ...options.simulator, dialect },
    spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
  });
  return harness;
}

const chat = (proxy: Harness, model = 'gpt-4o-mini', headers: Record<string, string> = {}): Promise<RawResponse> =>
  rawRequest(`${proxy.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: chatBody({ model }),
  });

/** The chat requests the gateway got (an unknown model also makes Airlock list the models, for suggestions). */
const chatsSent = (proxy: Harness): number =>
  proxy.simulator.received.filter((request) => request.path.endsWith('/chat/completions')).length;

function errorOf(response: RawResponse): { message: string; type: string; code: string; request_id?: string } {
  return (JSON.parse(response.body) as { error: { message: string; type: string; code: string; request_id?: string } }).error;
}

describe('only a rejected key opens the auth breaker (item 1)', () => {
  it.each<[DialectName, string]>([
    ['new-api', 'glm-4.6'],
    ['litellm', 'glm-4.6'],
  ])('a model not open to the key on %s is an unknown model, and the next request still goes out', async (dialect, model) => {
    const proxy = await start(dialect, { simulator: { closedModels: [model], models: [model, 'gpt-4o-mini'] } });
    const closed = await chat(proxy, model);
    expect(closed.status).toBe(404);
    expect(errorOf(closed).type).toBe('model_not_found');
    expect((await chat(proxy)).status).toBe(200);
    expect(chatsSent(proxy)).toBe(2);
  });

  it("new-api's 403 for an empty balance does not open it either", async () => {
    const proxy = await start('new-api');
    proxy.simulator.script({ kind: 'quota' });
    expect(errorOf(await chat(proxy)).type).toBe('quota_exhausted');
    expect((await chat(proxy)).status).toBe(200);
  });
});

describe('a rejected key (items 2 and 12)', () => {
  it('a 401 HTML page is a rejected key; the breaker then answers at once, naming the profile and the fix', async () => {
    const proxy = await start('seed');
    proxy.simulator.script({ kind: 'errorPage', status: 401 });
    const rejected = await chat(proxy);
    expect(rejected.status).toBe(401);
    expect(errorOf(rejected).type).toBe('auth');
    expect(rejected.headers['x-should-retry']).toBe('false');

    const refused = await chat(proxy);
    expect(refused.status).toBe(403);
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(refused.headers['x-should-retry']).toBe('false');
    const error = errorOf(refused);
    expect(error.type).toBe('circuit_open');
    expect(error.message).toContain(`profile "${proxy.profile.name}" (${proxy.profile.id})`);
    expect(error.message).toContain(`key set ${proxy.profile.id}`);
    expect(proxy.simulator.received).toHaveLength(1);
  });
});

describe("the gateway's Retry-After and request ids reach the client and the log (item 3)", () => {
  it.each<[DialectName, string]>([
    ['seed', 'x-request-id'],
    ['new-api', 'x-oneapi-request-id'],
    ['litellm', 'x-litellm-call-id'],
    ['openrouter', 'x-generation-id'],
  ])('%s: every attempt id is logged, the last one is answered with the Retry-After', async (dialect, idHeader) => {
    const proxy = await start(dialect, { profile: { retry: { maxRetries: 1, maxRetryAfterMs: 8000 } } });
    proxy.simulator.script(...Array.from({ length: 2 }, () => ({ kind: 'status' as const, status: 429, retryAfterS: 1 })));
    const ended = proxy.nextEnd();
    const response = await chat(proxy);
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('1');
    const end = await ended;
    const ids = end.upstreamRequestId?.split(', ') ?? [];
    expect(ids).toHaveLength(2);
    expect(response.headers['x-request-id']).toBe(ids[1]);
    expect(errorOf(response).request_id).toBe(ids[1]);
    expect(errorOf(response).message).toContain(ids[1]);
    expect(end.bodies.responseHeaders['retry-after']).toBe('1');
    expect(end.bodies.responseHeaders[idHeader]).toBe(ids[1]);
    // The gateway's clock, which the log keeps to tell a clock behind at a start (store/futureRows.ts).
    expect(Date.parse(end.bodies.responseHeaders.date ?? '')).not.toBeNaN();
    expect(end.bodies.responseBody?.toString('utf8')).toMatch(/error/);
  });

  it('passes a Retry-After given as an HTTP date on as sent, to an Anthropic client in its shape', async () => {
    const proxy = await start('seed', { profile: { modelRoutes: [{ pattern: 'claude-*', target: 'deepseek-chat' }] } });
    const retryAt = new Date(Date.now() + 60_000);
    proxy.simulator.script({ kind: 'status', status: 429, retryAfterDate: retryAt });
    const response = await rawRequest(`${proxy.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'x-stainless-retry-count': '0' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe(retryAt.toUTCString());
    const body = JSON.parse(response.body) as { type: string; request_id: string };
    expect(body.type).toBe('error');
    expect(response.headers['request-id']).toBe(body.request_id);
    expect(body.request_id).toMatch(/\S/);
  });
});

describe('an empty balance is final (item 4)', () => {
  it.each<[DialectName, number]>([
    ['seed', 429],
    ['openai', 429],
    ['new-api', 403],
    ['litellm', 400],
    ['openrouter', 402],
  ])('%s (gateway status %i): sent once, answered 402 quota_exhausted with the top-up fix', async (dialect) => {
    const proxy = await start(dialect);
    proxy.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'quota' as const })));
    const response = await chat(proxy);
    expect(response.status).toBe(402);
    expect(response.headers['x-should-retry']).toBe('false');
    const error = errorOf(response);
    expect(error.type).toBe('quota_exhausted');
    expect(error.message).toMatch(/top up/i);
    expect(proxy.simulator.received).toHaveLength(1);
    expect(findSentinel(response.body)).toBeNull();
  });
});

describe('final answers that no wait fixes', () => {
  it("new-api's 503 'No available channel for model' is an unknown model, sent once", async () => {
    const proxy = await start('new-api');
    const response = await chat(proxy, 'no-such-model');
    expect(response.status).toBe(404);
    expect(errorOf(response).type).toBe('model_not_found');
    expect(chatsSent(proxy)).toBe(1);
  });

  it('a web page where the API should be is 400 with the base URL and its fix, sent once (item 11)', async () => {
    const proxy = await start('seed');
    proxy.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'html' as const, status: 200 })));
    const response = await chat(proxy);
    expect(response.status).toBe(400);
    expect(response.headers['x-should-retry']).toBe('false');
    const error = errorOf(response);
    expect(error.type).toBe('html_instead_of_json');
    expect(error.message).toContain(`base URL ${proxy.profile.baseUrl}`);
    expect(error.message).toMatch(/ending in \/v1/);
    expect(proxy.simulator.received).toHaveLength(1);
  });
});

describe("a body over the gateway's size limit", () => {
  const bigChat = (bodyBytes: number): string =>
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(bodyBytes) }] });

  it("nginx's 413 page says so, and not that the base URL is wrong", async () => {
    const proxy = await start('seed');
    proxy.simulator.script({ kind: 'errorPage', server: 'nginx', status: 413 });
    const ended = proxy.nextEnd();
    const response = await rawRequest(`${proxy.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: bigChat(1024),
    });
    expect(response.status).toBe(413);
    const error = errorOf(response);
    expect(error.type).toBe('bad_request');
    expect(error.message).toMatch(/over the size limit of the gateway/);
    expect(error.message).not.toMatch(/web page/);
    expect((await ended).errorClass).toBe('bad_request');
    expect(proxy.simulator.received).toHaveLength(1);
  });

  // nginx answers before reading the body and closes; Airlock, sending a body over 1 MiB a slice a
  // turn, is still writing: the write fails and Node's HTTP clients lose the page (nodejs/node#54366).
  it('cut off while it was still being sent says the gateway closed the connection mid-body', async () => {
    const proxy = await start('seed', { simulator: { maxRequestBytes: 1024 * 1024 } });
    const ended = proxy.nextEnd();
    const response = await rawRequest(`${proxy.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: bigChat(8 * 1024 * 1024),
    });
    expect(response.status).toBe(502);
    const error = errorOf(response);
    expect(error.type).toBe('network');
    expect(['EPIPE', 'ECONNRESET']).toContain(error.code);
    expect(error.message).toMatch(/size limit/);
    const end = await ended;
    expect(end.errorClass).toBe('network');
    expect(findSentinel(response.body)).toBeNull();
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});

describe('one resend rule for chat POSTs (item 7, spec §7 rule 3)', () => {
  // The first attempt's headers are held until the test ends, so only the idle timeout can end it,
  // however slow the machine; the idle timeout is long enough for a second attempt's quick answer.
  const neverAnswered = Promise.withResolvers<void>();
  afterAll(() => neverAnswered.resolve());
  const timeouts = { connectTimeoutMs: 5000, idleTimeoutMs: 3000, totalTimeoutMs: 30_000 };
  const hadTheRequest = [
    ['a gateway 504', { kind: 'status' as const, status: 504 }, 504],
    ["Airlock's own idle timeout before any byte", { kind: 'holdHeaders' as const, until: neverAnswered.promise }, 504],
  ] as const;

  it.each(hadTheRequest)(
    '%s is not resent: the model had it and may have billed it, and the row says so',
    async (_label, fault, status) => {
      const proxy = await start('seed', { profile: { timeouts } });
      proxy.simulator.script(fault);
      const ended = proxy.nextEnd();
      const response = await chat(proxy);
      expect(response.status).toBe(status);
      expect(chatsSent(proxy)).toBe(1);
      const end = await ended;
      expect(end.retries).toBe(0);
      expect(end.logNotes?.join(' ')).toMatch(/Not resent: the gateway had the request and may have run and billed it/);
    },
  );

  it.each(hadTheRequest)('%s is resent when the client sent an idempotency key', async (_label, fault) => {
    const proxy = await start('seed', { profile: { timeouts } });
    proxy.simulator.script(fault);
    const ended = proxy.nextEnd();
    const response = await chat(proxy, 'gpt-4o-mini', { 'idempotency-key': 'resend-me-1' });
    expect(response.status).toBe(200);
    expect(chatsSent(proxy)).toBe(2);
    expect((await ended).retries).toBe(1);
  });

  it('a gateway 502 ran nothing and is resent', async () => {
    const proxy = await start('seed', { profile: { timeouts } });
    proxy.simulator.script({ kind: 'status', status: 502 });
    const ended = proxy.nextEnd();
    expect((await chat(proxy)).status).toBe(200);
    expect(chatsSent(proxy)).toBe(2);
    const end = await ended;
    expect(end.retries).toBe(1);
    expect(end.logNotes ?? []).not.toContainEqual(expect.stringMatching(/Not resent/));
  });
});
