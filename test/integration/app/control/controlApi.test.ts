import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyStatus, ProfileListResponse, ProfileTestResult, ProfileView } from '../../../../proxy/contracts/profileViews.ts';
import type { LiveFrame } from '../../../../proxy/contracts/liveEvents.ts';
import type { ModelListResponse } from '../../../../proxy/contracts/models.ts';
import type { RequestDetail, RequestPage } from '../../../../proxy/contracts/requests.ts';
import type { SpendResponse } from '../../../../proxy/contracts/spend.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../../support/http.ts';
import { CONTROL_TOKEN, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

let harness: ControlHarness;
/** Every control API body this file received, searched for the key at the end. */
const seenBodies: string[] = [];

async function call<T>(pathAndQuery: string, init: RequestInit = {}, expectedStatus = 200): Promise<T> {
  const response = await harness.api(pathAndQuery, init);
  const text = await response.text();
  seenBodies.push(text);
  expect(response.status, `${init.method ?? 'GET'} ${pathAndQuery}: ${text}`).toBe(expectedStatus);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });
const put = (body: unknown): RequestInit => ({ method: 'PUT', body: JSON.stringify(body) });

let clientToken = '';

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { streamChunkCount: 24 } });
});

afterAll(async () => {
  await harness?.close();
});

describe('control API against a real proxy and the simulator', () => {
  it('sets up a profile: base URL normalised, key write-only, test explained, activation', async () => {
    const created = await call<ProfileView>('/profiles', post({ id: 'main', name: 'Main', baseUrl: harness.simulator.url }), 201);
    expect(created.profile.baseUrl).toBe(`${harness.simulator.url}/v1`);
    expect(created.key).toEqual({ set: false, lastFour: null });

    const key = await call<KeyStatus>('/profiles/main/key', put({ key: `  Bearer ${SENTINEL_KEY}\n` }));
    expect(key).toEqual({ set: true, lastFour: SENTINEL_KEY.slice(-4) });

    const test = await call<ProfileTestResult>('/profiles/main/test', post({ model: 'gpt-4o-mini' }));
    expect(test.steps.map((step) => [step.name, step.ok])).toEqual([
      ['models', true],
      ['chat', true],
    ]);
    expect(test.steps[0]?.meaning).toMatch(/host, route and key work.*does not prove/);
    expect(test.models).toContain('gpt-4o-mini');

    const unknownModel = await call<ProfileTestResult>('/profiles/main/test', post({ model: 'no-such-model' }));
    expect(unknownModel.steps[1]).toMatchObject({ ok: false, errorClass: 'model_not_found' });
    expect(unknownModel.steps[1]?.fix).toMatch(/copy the exact id/i);

    await call('/profiles/main/activate', post({}));
    const list = await call<ProfileListResponse>('/profiles');
    expect(list.activeProfileId).toBe('main');
    expect(list.profiles[0]?.active).toBe(true);
  });

  it('creates a client token once, reveals it later from the keychain, and never accepts it for control', async () => {
    const created = await call<TokenSecretResponse>('/tokens', post({ name: 'e2e-client' }), 201);
    clientToken = created.token;
    expect(clientToken).toMatch(/^alk_/);
    const revealed = await call<TokenSecretResponse>('/tokens/e2e-client/reveal');
    expect(revealed.token).toBe(clientToken);

    const withClientToken = await fetch(`${harness.proxy.url}/_airlock/api/status`, {
      headers: { authorization: `Bearer ${clientToken}` },
    });
    expect(withClientToken.status).toBe(401);
    const withoutToken = await fetch(`${harness.proxy.url}/_airlock/api/status`);
    expect(withoutToken.status).toBe(401);
    const controlAsClient = await rawRequest(`${harness.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${CONTROL_TOKEN}` } });
    expect(controlAsClient.status).toBe(401);
  });

  it('pushes a stream live, merged per frame, and then lists and details it', async () => {
    const frames: LiveFrame[] = [];
    const abort = new AbortController();
    const events = await harness.api('/events', { signal: abort.signal });
    expect(events.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    let ended = false;
    const reading = (async () => {
      while (!ended) {
        const { done, value } = await reader.read();
        if (done) return;
        buffered += value;
        const messages = buffered.split('\n\n');
        buffered = messages.pop() ?? '';
        for (const message of messages) {
          const data = message.split('\n').find((line) => line.startsWith('data: '));
          if (!data) continue;
          const frame = JSON.parse(data.slice(6)) as LiveFrame;
          frames.push(frame);
          if (frame.requests.some((update) => update.fields.state === 'done')) ended = true;
        }
      }
    })();

    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}`, 'x-stainless-os': 'Linux', 'openai-organization': 'org-airlock' },
      body: chatBody({ stream: true }),
    });
    expect(reply.status).toBe(200);
    await reading;
    abort.abort();

    expect(frames[0]?.status?.activeProfile?.id).toBe('main');
    const updates = frames.flatMap((frame) => frame.requests);
    const requestId = updates.find((update) => update.fields.startedAtMs !== undefined)?.requestId;
    expect(requestId).toBeDefined();
    const mine = updates.filter((update) => update.requestId === requestId);
    const streamedText = mine.map((update) => update.appendText).join('');
    expect(streamedText.length).toBeGreaterThan(0);
    const clientText = sseData(reply.body)
      .filter((data) => data !== '[DONE]')
      .map((data) => (JSON.parse(data) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '')
      .join('');
    expect(streamedText).toBe(clientText);
    // 24 deltas plus start, headers, usage and end: merged into far fewer updates than events.
    expect(mine.length).toBeLessThan(24);
    expect(mine.at(-1)?.fields).toMatchObject({ state: 'done', status: 200 });

    await harness.log.flush();
    const page = await call<RequestPage>('/requests?client=e2e-client&limit=10');
    expect(page.items.map((item) => item.id)).toContain(requestId);
    const detail = await call<RequestDetail>(`/requests/${requestId}`);
    expect(detail).toMatchObject({ stream: true, status: 200, clientName: 'e2e-client', explanation: null });
    expect(detail.streamText).toBe(streamedText);
    expect(JSON.stringify(detail.requestHeaders)).not.toContain(clientToken);
    // One allowlist decides what is logged: the SDK's own headers are kept, credentials are not.
    expect(detail.requestHeaders).toMatchObject({
      'content-type': 'application/json',
      'x-stainless-os': 'Linux',
      'openai-organization': 'org-airlock',
    });
    expect(detail.requestHeaders).not.toHaveProperty('authorization');
  });

  it('explains a failed request with its class and fix, and filters by it', async () => {
    harness.simulator.script({ kind: 'status', status: 401, body: { error: { message: 'invalid key', code: 'invalid_api_key' } } });
    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody(),
    });
    expect(reply.status).toBe(401);
    await harness.log.flush();
    const page = await call<RequestPage>('/requests?errorClass=auth');
    expect(page.items).toHaveLength(1);
    const detail = await call<RequestDetail>(`/requests/${page.items[0]!.id}`);
    expect(detail.explanation).toMatchObject({ errorClass: 'auth', retryable: false });
    expect(detail.explanation?.fix).toMatch(/key/i);
    const status = await call<StatusResponse>('/status');
    expect(status.alarms.map((alarm) => alarm.kind)).toContain('key_rejected');

    // Setting the key again clears the alarm and the circuit breaker: the next request goes out.
    await call('/profiles/main/key', put({ key: SENTINEL_KEY }));
    expect((await call<StatusResponse>('/status')).alarms.map((alarm) => alarm.kind)).not.toContain('key_rejected');
  });

  it('pages with an opaque keyset cursor', async () => {
    const first = await call<RequestPage>('/requests?limit=1');
    expect(first.items).toHaveLength(1);
    expect(first.nextCursor).not.toBeNull();
    const second = await call<RequestPage>(`/requests?limit=1&cursor=${first.nextCursor}`);
    expect(second.items[0]?.id).not.toBe(first.items[0]?.id);
    await call('/requests?cursor=not-a-cursor', {}, 400);
  });

  it('answers a request id that is not one, or not even a valid address, as a client error', async () => {
    await call('/requests/alk_0_nosuch', {}, 404);
    const broken = await call<{ error: { code: string; message: string } }>('/requests/%E0%A4%A', {}, 400);
    expect(broken.error).toMatchObject({ code: 'invalid', message: expect.stringMatching(/%/) });
  });

  it('refuses search text with a NUL character, which the full-text query would cut short, instead of failing', async () => {
    const refused = await call<{ error: { field: string; message: string } }>('/requests?text=ab%00cd', {}, 400);
    expect(refused.error).toMatchObject({ field: 'text', message: expect.stringMatching(/NUL/) });
  });

  it('refuses a search longer than it takes with the limit and the fix, not a validator phrase', async () => {
    const refused = await call<{ error: { field: string; message: string } }>(`/requests?text=${'x'.repeat(501)}`, {}, 400);
    expect(refused.error).toMatchObject({ field: 'text', message: expect.stringMatching(/at most 500 characters.*shorter part/) });
  });

  it('costs priced requests and shows spend, budgets and rates', async () => {
    await call(
      '/profiles/main/prices',
      put({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 2000 }], priceMultiplier: 1 }),
    );
    await call('/profiles/main', put({ name: 'Main', baseUrl: harness.simulator.baseUrl, budget: { dailyCredits: 1000 } }));
    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody(),
    });
    expect(reply.status).toBe(200);
    await harness.log.flush();
    const spend = await call<SpendResponse>('/spend?range=7d');
    expect(spend.totals.today.credits).toBeGreaterThan(0);
    expect(spend.totals.today.cny).toBeCloseTo(spend.totals.today.credits * 0.75, 2);
    expect(spend.perModel.map((row) => row.key)).toContain('gpt-4o-mini');
    expect(spend.perClient.map((row) => row.key)).toContain('e2e-client');
    // The chat named no session: its spend is under the conversation Airlock recognised by its opening.
    const [topSession] = spend.perSession;
    expect(topSession?.key).toMatch(/^conv-[0-9a-f]{24}$/);
    expect(topSession?.costCredits).toBeGreaterThan(0);
    expect(spend.budgets).toEqual([
      expect.objectContaining({ scope: 'profile', subject: 'main', period: 'daily', capCredits: 1000, reached: false }),
    ]);
    expect(spend.rates.topUpTiers).toContainEqual({ minCredits: 500, discountPercent: 1.5 });
    expect(spend.perHour).toEqual([]);

    // Today is charted by the hour: every hour so far, this one holding the request's credits.
    const today = await call<SpendResponse>('/spend?range=today');
    const thisHour = `${String(new Date().getHours()).padStart(2, '0')}:00`;
    expect(today.perHour.at(-1)?.day).toBe(thisHour);
    expect(today.perHour).toHaveLength(new Date().getHours() + 1);
    expect(today.perHour.at(-1)?.creditsByModel['gpt-4o-mini']).toBeCloseTo(today.totals.today.credits, 6);
  });

  it.each([
    { name: 'a price', table: { prices: [{ model: 'm', inputPer1M: 1e300 }], priceMultiplier: 1 }, field: 'prices.0.inputPer1M' },
    { name: 'a multiplier', table: { prices: [{ model: 'm', inputPer1M: 1 }], priceMultiplier: 1e300 }, field: 'priceMultiplier' },
  ])('refuses $name no model has, whose sums would overflow and switch the caps off', async ({ table, field }) => {
    const refused = await call<{ error: { field: string; message: string } }>('/profiles/main/prices', put(table), 400);
    expect(refused.error.field).toBe(field);
    expect(refused.error.message).toMatch(/at most 1000000000|at most 1000\b/);
  });

  it('imports and exports prices as CSV', async () => {
    await call('/profiles/main/prices/import', post({ format: 'csv', text: 'model,inputPer1M,outputPer1M\nqwen-plus,2,6\n' }));
    const exported = await harness.api('/profiles/main/prices/export?format=csv');
    expect(exported.headers.get('content-type')).toMatch(/text\/csv/);
    expect(await exported.text()).toContain('qwen-plus');
  });

  it('saves the price table or the multiplier alone, keeping the other as it is in the file', async () => {
    await call('/profiles/main', put({ priceMultiplier: 1.5 }));
    const pricesAlone = await call<{ priceMultiplier: number }>(
      '/profiles/main/prices',
      put({ prices: [{ model: 'qwen-plus', inputPer1M: 2, outputPer1M: 6 }] }),
    );
    expect(pricesAlone.priceMultiplier).toBe(1.5);
    const multiplierAlone = await call<{ prices: unknown[]; priceMultiplier: number }>(
      '/profiles/main/prices',
      put({ priceMultiplier: 1 }),
    );
    expect(multiplierAlone).toEqual({ prices: [{ model: 'qwen-plus', inputPer1M: 2, outputPer1M: 6 }], priceMultiplier: 1 });
    const neither = await call<{ error: { message: string } }>('/profiles/main/prices', put({}), 400);
    expect(neither.error.message).toBe('give at least one of prices, priceMultiplier');
  });

  it('refuses a profile save over a setting changed elsewhere since the form was filled, and keeps that change', async () => {
    const filled = await call<ProfileListResponse>('/profiles');
    const fallbacksFilled = filled.profiles.find((view) => view.profile.id === 'main')?.profile.fallbacks;
    // `airlock profile fallback add` in a terminal while the window's form is open.
    const cli = await runAirlock(harness.dataDir, memorySecretStore(), ['profile', 'fallback', 'add', 'main', '--model', 'qwen-plus']);
    expect(cli.exitCode).toBe(0);

    const refused = await call<{ error: { code: string; message: string } }>(
      '/profiles/main',
      put({ fallbacks: [{ model: 'gpt-4o' }], expected: { fallbacks: fallbacksFilled } }),
      409,
    );
    expect(refused.error.message).toBe(
      'fallbacks of profile "main" changed elsewhere (the CLI, airlock.json or another window) since the form was filled: reload the profile, then make the change again',
    );
    expect(harness.store.snapshot().profiles.find((profile) => profile.id === 'main')?.fallbacks).toEqual([{ model: 'qwen-plus' }]);

    const saved = await call<ProfileView>('/profiles/main', put({ fallbacks: [], expected: { fallbacks: [{ model: 'qwen-plus' }] } }));
    expect(saved.profile.fallbacks).toEqual([]);
  });

  it('lists the gateway models with the price and the user figures', async () => {
    const models = await call<ModelListResponse>('/models?refresh=1');
    expect(models.error).toBeNull();
    const row = models.models.find((model) => model.id === 'qwen-plus');
    expect(row?.price).toMatchObject({ inputPer1M: 2 });
    expect(row?.capabilities.every((badge) => badge.supported === null)).toBe(true);
  });

  it('answers a mistyped model with the list the window fetched, without asking the gateway again', async () => {
    const modelListFetches = () =>
      harness.simulator.received.filter((request) => request.method === 'GET' && request.path === '/v1/models').length;
    const listed = await call<ModelListResponse>('/models?refresh=1');
    const fetchesAfterList = modelListFetches();
    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody({ model: 'qwen-plsu' }),
    });
    // Under the profile's cap the unknown model has no price, refused before sending: the refusal names the model it may mean.
    expect(reply.status).toBe(402);
    expect(JSON.parse(reply.body).error.message).toContain('Did you mean: qwen-plus');
    // Priced (a price table's names match in any case), the gateway's 404 for it is explained from the same list.
    const priced = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody({ model: 'Qwen-Plus' }),
    });
    expect(priced.status, priced.body).toBe(404);
    expect(JSON.parse(priced.body).error.message).toContain('Did you mean: qwen-plus');
    expect(modelListFetches()).toBe(fetchesAfterList);
    expect((await call<ModelListResponse>('/models')).fetchedAtMs).toBe(listed.fetchedAtMs);
  });

  it('pauses and resumes the proxy', async () => {
    await call('/pause', post({}));
    const paused = await rawRequest(`${harness.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${clientToken}` } });
    // 403 with x-should-retry: false, not a 503 every client retries: a paused Airlock stays paused until resumed.
    expect(paused.status).toBe(403);
    expect(paused.headers['x-should-retry']).toBe('false');
    await call('/resume', post({}));
    expect((await call<StatusResponse>('/status')).paused).toBe(false);
  });

  it('sets a profile’s request body limit, which the next request meets, and refuses one out of range', async () => {
    const updated = await call<ProfileView>('/profiles/main', put({ maxRequestBodyMiB: 1 }));
    expect(updated.profile.maxRequestBodyMiB).toBe(1);
    const body = chatBody({ messages: [{ role: 'user', content: 'x'.repeat(2 * 1024 * 1024) }] });
    const refused = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body,
    });
    expect(refused.status).toBe(413);
    const response = await harness.api('/profiles/main', put({ maxRequestBodyMiB: 0 }));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid', field: 'maxRequestBodyMiB' } });
    expect((await call<ProfileView>('/profiles/main', put({ maxRequestBodyMiB: 64 }))).profile.maxRequestBodyMiB).toBe(64);
  });

  it('names the bad field of an invalid profile and refuses an empty key', async () => {
    const response = await harness.api('/profiles', post({ id: 'Bad Id', name: 'x', baseUrl: 'https://example.com/v1' }));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid', field: 'id' } });
    await call('/profiles/main/key', put({ key: '   ' }), 400);
  });

  it('never sent the gateway key in any response', () => {
    expect(seenBodies.length).toBeGreaterThan(10);
    for (const body of seenBodies) expect(findSentinel(body)).toBeNull();
  });
});
