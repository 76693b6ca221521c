import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../../../proxy/contracts/profileViews.ts';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { poolKeyAccount } from '../../../../proxy/contracts/keyPool.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { findSentinel, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../../support/sentinel.ts';

/** The window's key pool API: a single-key profile becomes a pool without its key moving, and the running proxy uses the new key at once. */
let harness: ControlHarness;
let token = '';

async function api<T>(path: string, method = 'GET', body?: object): Promise<{ status: number; body: T; text: string }> {
  const response = await harness.api(path, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, text };
}

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY] } });
  await api('/profiles', 'POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl });
  await api('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await api('/profiles/main/activate', 'POST');
  token = (await api<TokenSecretResponse>('/tokens', 'POST', { name: 'pool-api' })).body.token;
});
afterAll(async () => {
  await harness.close();
});

const chat = () =>
  rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(),
  });

describe('the key pool routes', () => {
  it('turn the profile’s key into the pool’s first, add a second used in turn, rename and remove', async () => {
    const added = await api<ProfileView>('/profiles/main/keys', 'POST', { key: SECOND_SENTINEL_KEY, label: 'spare' });
    expect(added.status).toBe(201);
    expect([findSentinel(added.text), findSentinel(added.text, SECOND_SENTINEL_KEY)]).toEqual([null, null]);
    const [first, second] = added.body.keyPool ?? [];
    expect(first).toEqual({ id: 'main', label: 'key 1', lastFour: SENTINEL_KEY.slice(-4), status: { state: 'ready' } });
    expect(second).toMatchObject({ label: 'spare', lastFour: SECOND_SENTINEL_KEY.slice(-4), status: { state: 'ready' } });
    // The first key stayed where it was in the keychain; the second has its own account.
    expect(await harness.secrets.get('main')).toBe(SENTINEL_KEY);
    expect(await harness.secrets.get(poolKeyAccount('main', second?.id ?? ''))).toBe(SECOND_SENTINEL_KEY);

    harness.simulator.reset();
    for (let index = 0; index < 4; index += 1) expect((await chat()).status).toBe(200);
    const tails = harness.simulator.received.map((received) => String(received.headers.authorization).slice(-4));
    expect(new Set(tails)).toEqual(new Set([SENTINEL_KEY.slice(-4), SECOND_SENTINEL_KEY.slice(-4)]));
    expect(tails[0]).not.toBe(tails[1]);
    expect(tails[1]).not.toBe(tails[2]);

    const renamed = await api<ProfileView>('/profiles/main/keys/main', 'PUT', { label: 'team A' });
    expect(renamed.body.keyPool?.[0]?.label).toBe('team A');
    expect((await api('/profiles/main/keys/main', 'PUT', { label: '' })).status).toBe(400);

    const removed = await api<ProfileView>(`/profiles/main/keys/${second?.id}`, 'DELETE');
    expect(removed.body.keyPool?.map((key) => key.id)).toEqual(['main']);
    expect(await harness.secrets.get(poolKeyAccount('main', second?.id ?? ''))).toBeNull();
    harness.simulator.reset();
    expect((await chat()).status).toBe(200);
    expect(String(harness.simulator.received[0]?.headers.authorization).slice(-4)).toBe(SENTINEL_KEY.slice(-4));
  });

  it('does not take a pool through the profile form: keys come with their secrets only', async () => {
    const put = await api<ProfileView>('/profiles/main', 'PUT', { keyPool: [{ id: 'zz', label: 'ghost' }] });
    expect(put.body.keyPool?.map((key) => key.id)).toEqual(['main']);
  });

  it('removing the profile removes every key of its pool from the keychain', async () => {
    const added = await api<ProfileView>('/profiles/main/keys', 'POST', { key: SECOND_SENTINEL_KEY });
    const accounts = (added.body.keyPool ?? []).map((key) => poolKeyAccount('main', key.id));
    expect(accounts).toHaveLength(2);
    expect((await api('/profiles/main', 'DELETE')).status).toBe(204);
    expect(await Promise.all(accounts.map((account) => harness.secrets.get(account)))).toEqual([null, null]);
  });
});
