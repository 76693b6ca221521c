import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/api.ts';
import type { RequestDetail } from '../../../proxy/contracts/log.ts';
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

async function call<T>(pathAndQuery: string, method: string, body: unknown): Promise<T> {
  const response = await harness.api(pathAndQuery, { method, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.ok, `${pathAndQuery}: ${text}`).toBe(true);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

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

const post = (): Promise<RawResponse> =>
  rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(),
  });

async function logged(response: RawResponse): Promise<RequestDetail> {
  const id = String(response.headers['x-airlock-request-id']);
  await expect
    .poll(async () => {
      await harness.log.flush();
      return harness.log.getRequest(id)?.row.state;
    })
    .toBe('done');
  return harness.log.getRequest(id)!;
}

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
