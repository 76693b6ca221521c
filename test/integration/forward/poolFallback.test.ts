import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import type { StoredRequest } from '../../../proxy/contracts/log.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Issue 22's fallback list and key pool, together: a pooled profile's step that fails falls back
 * like any other, and each step goes out with the key the log names. Through the real proxy.
 */
const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-91d3f0a6c2e84b7d5a1f6e3c';

let harness: ControlHarness;
let backup: GatewaySimulator;
let token: string;

const call = <T>(pathAndQuery: string, method: string, body: unknown): Promise<T> =>
  harness.json<T>(pathAndQuery, { method, body: JSON.stringify(body) });

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY] } });
  backup = await startGatewaySimulator({ validKeys: [BACKUP_KEY] });
  await call('/profiles', 'POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl });
  await call('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await call('/profiles/main/keys', 'POST', { key: SECOND_SENTINEL_KEY, label: 'spare' });
  await call('/profiles', 'POST', { id: 'backup', name: 'Backup', baseUrl: backup.baseUrl });
  await call('/profiles/backup/key', 'PUT', { key: BACKUP_KEY });
  await call('/profiles/main/activate', 'POST', {});
  token = (await call<TokenSecretResponse>('/tokens', 'POST', { name: 'agent' })).token;
});
afterAll(async () => {
  await harness?.close();
  await backup?.close();
});
beforeEach(() => {
  harness.simulator.reset();
  harness.simulator.setKeyRequestLimits({});
  backup.reset();
});

const post = (pathName = '/v1/chat/completions', body = chatBody()): Promise<RawResponse> =>
  rawRequest(`${harness.proxy.url}${pathName}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body,
  });
const MESSAGES_BODY = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });

const logged = (response: RawResponse): Promise<StoredRequest> => harness.loggedDetail(response);

/** The label of the key each request reached the main gateway with. */
const mainKeysReceived = (): string[] =>
  harness.simulator.received.map((received) =>
    String(received.headers.authorization).endsWith(SENTINEL_KEY.slice(-4)) ? 'key 1' : 'spare',
  );

describe('a pooled profile with a fallback list', () => {
  it('a step on the same pooled profile goes out with the key the log names for it', async () => {
    await call('/profiles/main', 'PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 1000 }, fallbacks: [{ model: 'deepseek-chat' }] });
    // The first key's 429 moves the request to the other key, whose 500 falls back to another model.
    harness.simulator.script({ kind: 'status', status: 429, retryAfterS: 60 }, { kind: 'status', status: 500 });
    const response = await post();
    expect(response.status, response.body).toBe(200);
    const sent = mainKeysReceived();
    expect(sent).toHaveLength(3);
    expect(sent[2]).toBe(sent[1]);
    const { row } = await logged(response);
    expect(row.gatewayKeys?.map((use) => use.label)).toEqual(sent);
  });

  // Last: it leaves both keys cooling for a minute.
  it('a pool whose keys all answer 429 falls back to the next profile instead of refusing', async () => {
    await call('/profiles/main', 'PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 1000 }, fallbacks: [{ profileId: 'backup' }] });
    harness.simulator.setKeyRequestLimits({ [SENTINEL_KEY]: 0, [SECOND_SENTINEL_KEY]: 0 }, 60);
    const response = await post();
    expect(response.status, response.body).toBe(200);
    expect(response.headers['x-airlock-answered-by']).toBe('backup/gpt-4o-mini');
    expect(backup.received).toHaveLength(1);
    const { row } = await logged(response);
    expect(row.profileId).toBe('backup');
    expect(row.fallbackChain?.map((hop) => [hop.profileId, hop.status])).toEqual([
      ['main', 429],
      ['backup', 200],
    ]);
  });
});

/**
 * After the case above both keys of "main" cool for a minute: a new request is held at admission,
 * before anything is sent. It walks the fallback list as if main had answered 429.
 */
describe('a new request while every key of the pool is cooling', () => {
  const setMain = (fallbacks: unknown[]): Promise<unknown> =>
    call('/profiles/main', 'PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 1000 }, fallbacks });
  const mainSkipped = {
    profileId: 'main',
    model: 'gpt-4o-mini',
    status: null,
    errorClass: 'keys_cooling',
    note: expect.stringMatching(/Every key of profile "Main" \(main\) is rate limited .* can be used again in \d+ s/),
  };
  beforeEach(() => call('/profiles/backup', 'PUT', { budget: {}, prices: [] }));

  it('a chat is answered by the backup profile; main is sent nothing, and the chain says why it was skipped', async () => {
    await setMain([{ profileId: 'backup' }]);
    const response = await post();
    expect(response.status, response.body).toBe(200);
    expect(response.headers['x-airlock-answered-by']).toBe('backup/gpt-4o-mini');
    // No step was sent before the one answering: the skipped first step is not counted.
    expect(response.headers['x-airlock-fallbacks']).toBe('0');
    expect(harness.simulator.received).toHaveLength(0);
    expect(backup.received).toHaveLength(1);
    expect(backup.received[0]!.authOk).toBe(true);
    const { row } = await logged(response);
    expect(row.profileId).toBe('backup');
    expect(row.status).toBe(200);
    expect(row.fallbackChain).toEqual([mainSkipped, { profileId: 'backup', model: 'gpt-4o-mini', status: 200, errorClass: null }]);
  });

  it('a translated Messages request is answered by the backup, in its own protocol', async () => {
    await setMain([{ profileId: 'backup' }]);
    const response = await post('/v1/messages', MESSAGES_BODY);
    expect(response.status, response.body).toBe(200);
    expect((JSON.parse(response.body) as { type: string }).type).toBe('message');
    expect(response.headers['x-airlock-answered-by']).toBe('backup/gpt-4o-mini');
    expect(harness.simulator.received).toHaveLength(0);
    expect(backup.received.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(1);
    expect((await logged(response)).row.fallbackChain?.[0]).toEqual(mainSkipped);
  });

  it("with no step left the client gets the pool's refusal and its wait; the chain says why each step was skipped", async () => {
    await call('/profiles/backup', 'PUT', {
      prices: [{ model: 'gpt-4o-mini', inputPer1M: 1_000_000 }],
      budget: { perRequestInputCredits: 0.001 },
    });
    // Another model on main is held too: the keys cool whatever the model.
    await setMain([{ model: 'deepseek-chat' }, { profileId: 'backup' }]);
    const response = await post();
    expect(response.status, response.body).toBe(429);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect((JSON.parse(response.body) as { error: { type: string } }).error.type).toBe('keys_cooling');
    expect(response.headers['x-airlock-answered-by']).toBeUndefined();
    expect(harness.simulator.received).toHaveLength(0);
    expect(backup.received).toHaveLength(0);
    const { row } = await logged(response);
    expect(row.profileId).toBe('main');
    expect(row.errorClass).toBe('keys_cooling');
    expect(row.fallbackChain).toEqual([
      mainSkipped,
      { ...mainSkipped, model: 'deepseek-chat' },
      { profileId: 'backup', model: 'gpt-4o-mini', status: null, errorClass: 'budget_exceeded', note: expect.stringContaining('budget') },
    ]);
  });

  it("an image creation without an idempotency key is not sent to the backup: it gets the pool's refusal", async () => {
    await setMain([{ profileId: 'backup' }]);
    const response = await post('/v1/images/generations', JSON.stringify({ model: 'gpt-4o-mini', prompt: 'a cat' }));
    expect(response.status, response.body).toBe(429);
    expect(backup.received).toHaveLength(0);
    expect(harness.simulator.received).toHaveLength(0);
    const { row } = await logged(response);
    expect(row.errorClass).toBe('keys_cooling');
    expect(row.fallbackChain).toBeUndefined();
  });
});
