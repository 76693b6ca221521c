import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import type { FallbackEntry, ProfileInput } from '../../../proxy/contracts/profile.ts';
import type { StoredRequest } from '../../../proxy/contracts/log.ts';
import { startGatewaySimulator, type DialectName, type GatewaySimulator } from '../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Issue 22: a request that failed before any byte reached its client, with a retryable class, is
 * sent to the next step of its profile's fallback list; the client learns who answered, the log
 * keeps the way it took. Through the real proxy (startAirlock), two simulated gateways.
 */

/** The backup gateway's own key: it must reach the backup, and only it, and appear nowhere else. */
const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-4c1e8a7b2d9f03e6a5b8c7d1';

let harness: ControlHarness;
let backup: GatewaySimulator;
let token: string;

const call = <T>(pathAndQuery: string, init: RequestInit = {}): Promise<T> => harness.json<T>(pathAndQuery, init);
const send = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

async function setMain(fallbacks: FallbackEntry[], extra: Partial<ProfileInput> = {}): Promise<void> {
  await call('/profiles/main', send('PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 8000 }, ...extra, fallbacks }));
}

beforeAll(async () => {
  harness = await startControlHarness();
  backup = await startGatewaySimulator({ validKeys: [BACKUP_KEY] });
  await call('/profiles', send('POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }));
  await call('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
  await call(
    '/profiles',
    send('POST', { id: 'backup', name: 'Backup', baseUrl: backup.baseUrl, modelAliases: { 'gpt-4o-mini': 'qwen-plus' } }),
  );
  await call('/profiles/backup/key', send('PUT', { key: BACKUP_KEY }));
  await call('/profiles/main/activate', send('POST', {}));
  token = (await call<TokenSecretResponse>('/tokens', send('POST', { name: 'agent' }))).token;
});
afterAll(async () => {
  await harness?.close();
  await backup?.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  backup.reset();
  harness.simulator.useDialect('seed');
  backup.useDialect('seed');
  await call('/profiles/backup', send('PUT', { budget: {}, prices: [], retry: { maxRetries: 0, maxRetryAfterMs: 8000 } }));
});

const post = (pathName: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
  rawRequest(`${harness.proxy.url}${pathName}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, ...headers },
    body,
  });

const logged = (response: RawResponse): Promise<StoredRequest> => harness.loggedDetail(response);

const chatsTo = (simulator: GatewaySimulator) => simulator.received.filter((request) => request.path.endsWith('/chat/completions'));
const modelSent = (simulator: GatewaySimulator, index: number): unknown =>
  (JSON.parse(chatsTo(simulator)[index]!.body.toString()) as { model: unknown }).model;

describe('a failure before any byte falls back', () => {
  it.each<[DialectName, number]>([
    ['seed', 503],
    ['new-api', 429],
    ['litellm', 500],
  ])('%s: a %i from model A is answered by model B on the same profile, and the way is logged', async (dialect, status) => {
    harness.simulator.useDialect(dialect);
    await setMain([{ model: 'deepseek-chat' }]);
    harness.simulator.script({ kind: 'status', status });
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status, response.body).toBe(200);
    expect(response.headers['x-airlock-answered-by']).toBe('main/deepseek-chat');
    expect(response.headers['x-airlock-fallbacks']).toBe('1');
    expect([modelSent(harness.simulator, 0), modelSent(harness.simulator, 1)]).toEqual(['gpt-4o-mini', 'deepseek-chat']);
    const { row } = await logged(response);
    expect(row.fallbackChain).toEqual([
      { profileId: 'main', model: 'gpt-4o-mini', status, errorClass: status === 429 ? 'rate_limited' : 'upstream_error' },
      { profileId: 'main', model: 'deepseek-chat', status: 200, errorClass: null },
    ]);
    expect(row.upstreamModel).toBe('deepseek-chat');
    expect(row.status).toBe(200);
  });

  it("Anthropic's 529 overloaded on a translated Messages request moves to the other profile with its key and aliases", async () => {
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 529, path: 'chat/completions' });
    const response = await post(
      '/v1/messages',
      JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(response.status, response.body).toBe(200);
    expect((JSON.parse(response.body) as { type: string }).type).toBe('message');
    expect(response.headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
    const received = chatsTo(backup);
    expect(received).toHaveLength(1);
    expect(received[0]!.authOk).toBe(true);
    expect(modelSent(backup, 0)).toBe('qwen-plus');
    const { row } = await logged(response);
    expect(row.profileId).toBe('backup');
    expect(row.fallbackChain?.map((hop) => [hop.profileId, hop.model, hop.status])).toEqual([
      ['main', 'gpt-4o-mini', 529],
      ['backup', 'qwen-plus', 200],
    ]);
  });

  it('a 429 whose Retry-After is longer than the profile waits for moves on at once', async () => {
    await setMain([{ profileId: 'backup', model: 'glm-4.6' }], { retry: { maxRetries: 3, maxRetryAfterMs: 1000 } });
    harness.simulator.script({ kind: 'status', status: 429, retryAfterS: 120 });
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(response.headers['x-airlock-answered-by']).toBe('backup/glm-4.6');
    expect(chatsTo(harness.simulator)).toHaveLength(1);
  });

  it('a stream that fails before its first byte falls back, and the client gets one whole stream', async () => {
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 502 });
    const response = await post('/v1/chat/completions', chatBody({ stream: true }));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    expect(response.headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
    expect(response.body).toContain('data: [DONE]');
    expect(response.body).not.toContain('"error"');
    const { row } = await logged(response);
    expect(row.fallbackChain).toHaveLength(2);
  });

  it('vllm: a streamed Responses request whose gateway answers 503 before its first byte is answered by the backup, whole', async () => {
    harness.simulator.useDialect('vllm');
    backup.useDialect('vllm');
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 503, path: 'chat/completions' });
    const response = await post('/v1/responses', JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', stream: true }));
    expect(response.status).toBe(200);
    expect(response.headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
    expect(response.body).toContain('event: response.completed');
    expect(response.body).not.toContain('event: error');
    expect(chatsTo(backup)).toHaveLength(1);
  });
});

describe('when every step fails', () => {
  it("the client gets the last step's failure, as its protocol says it, and the chain holds each step's own", async () => {
    await setMain([{ model: 'deepseek-chat' }, { profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 503 }, { kind: 'status', status: 502 });
    backup.script({ kind: 'status', status: 429, retryAfterS: 7 });
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
    expect(response.headers['x-airlock-fallbacks']).toBe('2');
    const { row } = await logged(response);
    expect(row.errorClass).toBe('rate_limited');
    expect(row.fallbackChain).toEqual([
      { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' },
      { profileId: 'main', model: 'deepseek-chat', status: 502, errorClass: 'upstream_error' },
      { profileId: 'backup', model: 'qwen-plus', status: 429, errorClass: 'rate_limited' },
    ]);
  });
});

describe('network failures and missing profiles', () => {
  it('a gateway that refuses the connection falls back to the other profile', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await setMain([{ profileId: 'backup' }], { baseUrl: `http://127.0.0.1:${port}/v1` });
    try {
      const response = await post('/v1/chat/completions', chatBody());
      expect(response.status, response.body).toBe(200);
      expect(response.headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
      const { row } = await logged(response);
      expect(row.fallbackChain?.map((hop) => [hop.profileId, hop.status, hop.errorClass])).toEqual([
        ['main', null, 'network'],
        ['backup', 200, null],
      ]);
    } finally {
      await setMain([], { baseUrl: harness.simulator.baseUrl });
    }
  });

  it('a step naming a profile removed since is skipped with the cause and the fix, and the next step answers', async () => {
    await setMain([]);
    // The file edited by hand (the window and the CLI refuse such a step when it is saved).
    await harness.store.update((config) => ({
      ...config,
      profiles: config.profiles.map((profile) =>
        profile.id === 'main' ? { ...profile, fallbacks: [{ profileId: 'gone' }, { profileId: 'backup' }] } : profile,
      ),
    }));
    harness.simulator.script({ kind: 'status', status: 503 });
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    const { row } = await logged(response);
    expect(row.fallbackChain?.[1]).toEqual({
      profileId: 'gone',
      model: null,
      status: null,
      errorClass: 'no_key',
      note: 'fallback profile "gone" does not exist: add it, or remove it from the fallbacks of "main"',
    });
    expect(row.fallbackChain?.[2]).toMatchObject({ profileId: 'backup', status: 200 });
  });
});

describe('what never falls back', () => {
  it('a stream cut after its first byte reached the client is not sent anywhere else', async () => {
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'cutAfter', chunks: 2 });
    const response = await post('/v1/chat/completions', chatBody({ stream: true }));
    expect(response.status).toBe(200);
    expect(response.headers['x-airlock-answered-by']).toBe('main/gpt-4o-mini');
    expect(response.headers['x-airlock-fallbacks']).toBeUndefined();
    expect(backup.received).toHaveLength(0);
    const { row } = await logged(response);
    expect(row.errorClass, response.body).toBe('stream_interrupted');
    expect(row.fallbackChain).toBeUndefined();
  });

  it('an image creation without an idempotency key gets its failure, the backup gets nothing', async () => {
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 503 });
    const response = await post('/v1/images/generations', JSON.stringify({ model: 'gpt-4o-mini', prompt: 'a cat' }));
    expect(response.status).toBe(503);
    expect(backup.received).toHaveLength(0);
    expect((await logged(response)).row.fallbackChain).toBeUndefined();
  });

  it('a keyed image creation answered by the backup is repeated without the backup key its gateway echoed in the answer', async () => {
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 429 });
    // A careless gateway hands its key back in the answer's body and as its request id.
    backup.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: JSON.stringify({ created: 1, data: [{ url: `https://images.example/${BACKUP_KEY}.png` }] }),
    });
    const body = JSON.stringify({ model: 'gpt-4o-mini', prompt: 'a cat' });
    const headers = { 'idempotency-key': 'fallback-echo-1' };
    const first = await post('/v1/images/generations', body, headers);
    expect(first.status, first.body).toBe(200);
    expect(backup.received).toHaveLength(1);
    const repeat = await post('/v1/images/generations', body, headers);
    expect(repeat.status).toBe(200);
    // The repeat came from the kept answer, not from a gateway.
    expect(backup.received).toHaveLength(1);
    for (const response of [first, repeat]) {
      expect(findSentinel(JSON.stringify(response.headers) + response.body, BACKUP_KEY)).toBeNull();
    }
  });

  it("a fallback past the other profile's budget is skipped: the client gets the first failure and the chain says why", async () => {
    await call(
      '/profiles/backup',
      send('PUT', { prices: [{ model: 'qwen-plus', inputPer1M: 1_000_000 }], budget: { perRequestInputCredits: 0.001 } }),
    );
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 503 });
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(503);
    expect(response.headers['x-airlock-answered-by']).toBe('main/gpt-4o-mini');
    expect(backup.received).toHaveLength(0);
    const { row } = await logged(response);
    expect(row.profileId).toBe('main');
    expect(row.fallbackChain).toEqual([
      { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' },
      { profileId: 'backup', model: 'qwen-plus', status: null, errorClass: 'budget_exceeded', note: expect.stringContaining('budget') },
    ]);
  });

  it("a fallback to a profile whose key its gateway rejected is skipped while that profile's auth breaker is open", async () => {
    await call('/profiles/backup/key', send('PUT', { key: 'sk-airlock-wrong-backup-key-0000000000' }));
    try {
      await setMain([{ profileId: 'backup' }]);
      harness.simulator.script({ kind: 'status', status: 503 }, { kind: 'status', status: 503 });
      const first = await post('/v1/chat/completions', chatBody());
      expect(backup.received).toHaveLength(1);
      expect(first.status).toBe(401);
      const second = await post('/v1/chat/completions', chatBody());
      expect(second.status).toBe(503);
      expect(backup.received).toHaveLength(1);
      const { row } = await logged(second);
      expect(row.fallbackChain).toEqual([
        { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' },
        { profileId: 'backup', model: 'qwen-plus', status: null, errorClass: 'circuit_open', note: expect.stringContaining('Backup') },
      ]);
    } finally {
      // A key change resets the breaker: the other tests find the backup as they expect it.
      await call('/profiles/backup/key', send('PUT', { key: BACKUP_KEY }));
    }
  });

  it('a rejected key is final: no fallback', async () => {
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 401 });
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(401);
    expect(backup.received).toHaveLength(0);
    await call('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
  });
});

describe('keys', () => {
  it("each gateway gets only its own key, and neither key is in the log's file, rows or answers", async () => {
    await setMain([{ profileId: 'backup' }]);
    harness.simulator.script({ kind: 'status', status: 503 });
    const response = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(backup.received.every((request) => request.authOk)).toBe(true);
    expect(harness.simulator.received.every((request) => request.authOk)).toBe(true);
    const detail = await logged(response);
    const visible = JSON.stringify(detail) + JSON.stringify(response.headers) + response.body;
    for (const key of [SENTINEL_KEY, BACKUP_KEY]) {
      expect(findSentinel(visible, key)).toBeNull();
      for (const file of readdirSync(harness.dataDir).filter((name) => name.startsWith('requests.db'))) {
        expect(findSentinel(readFileSync(path.join(harness.dataDir, file)), key), file).toBeNull();
      }
    }
  });
});

describe('a fallback step admitted while its profile had no cap', () => {
  it('holds its input once a cap set while it runs is read: a request beside it is not let past the cap', async () => {
    // A profile of its own: its day's spend starts at nothing whatever the tests above spent.
    await call(
      '/profiles',
      send('POST', { id: 'spare', name: 'Spare', baseUrl: backup.baseUrl, modelAliases: { 'gpt-4o-mini': 'qwen-plus' } }),
    );
    await call('/profiles/spare/key', send('PUT', { key: BACKUP_KEY }));
    await call('/profiles/spare', send('PUT', { prices: [{ model: 'qwen-plus', inputPer1M: 1_000_000 }] }));
    await setMain([{ profileId: 'spare' }]);
    harness.simulator.script({ kind: 'status', status: 503 }, { kind: 'status', status: 503 });
    const held = backup.holdNext('/chat/completions');
    // About 2,000 input tokens, no output limit: its input is all it states it may cost (a credit a token).
    const running = post('/v1/chat/completions', chatBody({ messages: [{ role: 'user', content: 'word '.repeat(2000) }] }));
    await held.arrived;
    await call('/profiles/spare', send('PUT', { budget: { dailyCredits: 1000 } }));

    const beside = await post('/v1/chat/completions', chatBody());
    held.release();
    expect((await running).status).toBe(200);
    expect(beside.status).toBe(503);
    expect(chatsTo(backup)).toHaveLength(1);
  });
});
