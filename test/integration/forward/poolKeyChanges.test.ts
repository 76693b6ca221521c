import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProfileListResponse } from '../../../proxy/contracts/profileViews.ts';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A pooled profile whose keys the user removes or replaces in the window while a request runs on the
 * pool: the request must not go on with a key taken away, whatever its attempts meet.
 */
const NEW_SECRET = 'sk-airlock-pool-secret-replaced-7d3e9b1f5a2c8e4d6b0a';
const RATE_LIMITED = JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
const OVERLOADED = JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error' } });

let harness: ControlHarness;
let token: string;
const send = (body: unknown, method = 'POST'): RequestInit => ({ method, body: JSON.stringify(body) });

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY, NEW_SECRET] } });
  token = (await harness.json<TokenSecretResponse>('/tokens', send({ name: 'agent' }))).token;
});
afterAll(() => harness.close());
beforeEach(async () => {
  // A new pool for each case: nothing of the last case's cooling keys is left.
  await harness.api('/profiles/pool', { method: 'DELETE' });
  await harness.json('/profiles', send({ id: 'pool', name: 'Pool', baseUrl: harness.simulator.baseUrl }));
  await harness.json('/profiles/pool/keys', send({ key: SENTINEL_KEY, label: 'first' }));
  await harness.json('/profiles/pool/keys', send({ key: SECOND_SENTINEL_KEY, label: 'second' }));
  await harness.json('/profiles/pool/activate', { method: 'POST' });
  harness.simulator.reset();
});

/** Which secret each attempt reached the gateway with, by its last four characters (the recorder masks the rest). */
const sentKeys = () => harness.simulator.received.map((received) => String(received.headers.authorization).slice(-4));
const lastFour = (key: string) => key.slice(-4);

/**
 * A chat request whose first attempt is answered `status` only once `change` has run on the pool's key
 * that attempt did not use (`other`) or did (`own`), so the change lands while the request runs, whatever the load.
 */
async function changeKeyDuringAttempt(status: number, body: string, change: (keys: { own: string; other: string }) => Promise<unknown>) {
  let endAnswer: () => void = () => undefined;
  const answerEnds = new Promise<void>((resolve) => (endAnswer = resolve));
  harness.simulator.script({ kind: 'text', status, text: body, contentType: 'application/json', pausedAt: { byte: 0, until: answerEnds } });
  const answer = rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(),
  });
  await expect.poll(() => harness.simulator.received.length).toBe(1);
  const { profiles } = await harness.json<ProfileListResponse>('/profiles');
  const pool = profiles.find((view) => view.profile.id === 'pool')?.profile.keyPool ?? [];
  const ownSecret = sentKeys()[0] === lastFour(SENTINEL_KEY) ? 'first' : 'second';
  const own = pool.find((entry) => entry.label === ownSecret)?.id ?? '';
  const other = pool.find((entry) => entry.label !== ownSecret)?.id ?? '';
  await change({ own, other });
  endAnswer();
  return { answer: await answer, firstSent: sentKeys()[0] };
}

describe('a pool key changed while a request runs on the pool', () => {
  it('removed: a 429 on the key in use does not move the request on to it', async () => {
    const { answer, firstSent } = await changeKeyDuringAttempt(429, RATE_LIMITED, ({ other }) =>
      harness.json(`/profiles/pool/keys/${other}`, { method: 'DELETE' }),
    );
    expect(sentKeys()).toEqual([firstSent]);
    expect(answer.status).toBe(429);
  });

  it('given a new secret: a 429 does not move the request on to the old secret', async () => {
    const { answer, firstSent } = await changeKeyDuringAttempt(429, RATE_LIMITED, ({ other }) =>
      harness.json(`/profiles/pool/keys/${other}/secret`, send({ key: NEW_SECRET }, 'PUT')),
    );
    expect(sentKeys()).toEqual([firstSent]);
    expect(answer.status).toBe(429);
    // The next request may use the new secret.
    const next = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(next.status).toBe(200);
    expect(sentKeys().at(-1)).toBe(lastFour(NEW_SECRET));
  });

  it('the key in use removed before its resend: the resend goes with the pool’s other key', async () => {
    const { answer, firstSent } = await changeKeyDuringAttempt(503, OVERLOADED, ({ own }) =>
      harness.json(`/profiles/pool/keys/${own}`, { method: 'DELETE' }),
    );
    expect(answer.status).toBe(200);
    const other = firstSent === lastFour(SENTINEL_KEY) ? lastFour(SECOND_SENTINEL_KEY) : lastFour(SENTINEL_KEY);
    expect(sentKeys()).toEqual([firstSent, other]);
    const { row } = await harness.loggedDetail(answer);
    expect(row.gatewayKeys?.map((use) => use.label)).toEqual(
      firstSent === lastFour(SENTINEL_KEY) ? ['first', 'second'] : ['second', 'first'],
    );
  });

  it('the key in use removed before a fallback on another model: the step goes with the pool’s other key', async () => {
    await harness.json('/profiles/pool', send({ fallbacks: [{ model: 'deepseek-chat' }] }, 'PUT'));
    // A 500 is not resent: the next model is the fallback's step.
    const { answer, firstSent } = await changeKeyDuringAttempt(500, OVERLOADED, ({ own }) =>
      harness.json(`/profiles/pool/keys/${own}`, { method: 'DELETE' }),
    );
    expect(answer.status).toBe(200);
    const other = firstSent === lastFour(SENTINEL_KEY) ? lastFour(SECOND_SENTINEL_KEY) : lastFour(SENTINEL_KEY);
    expect(sentKeys()).toEqual([firstSent, other]);
  });
});

describe('the model lookup of a pooled model-not-found answer (its "Did you mean")', () => {
  const MODEL_NOT_FOUND = JSON.stringify({
    error: { message: 'The model does not exist', type: 'invalid_request_error', code: 'model_not_found' },
  });
  const modelLookups = () =>
    harness.simulator.received
      .filter((received) => received.path.startsWith('/v1/models'))
      .map((received) => String(received.headers.authorization).slice(-4));

  it('the key in use removed while the 404 came: the lookup is not sent with it', async () => {
    const { answer } = await changeKeyDuringAttempt(404, MODEL_NOT_FOUND, ({ own }) =>
      harness.json(`/profiles/pool/keys/${own}`, { method: 'DELETE' }),
    );
    expect(answer.status).toBe(404);
    expect(modelLookups()).toEqual([]);
  });

  it('after a 429 moved the request on: the lookup goes with the key that got the 404, not the rate-limited one', async () => {
    // A profile of its own: the lookup's model list is cached per profile, and no earlier case's list may answer it.
    await harness.json('/profiles', send({ id: 'lookup', name: 'Lookup', baseUrl: harness.simulator.baseUrl }));
    await harness.json('/profiles/lookup/keys', send({ key: SENTINEL_KEY, label: 'first' }));
    await harness.json('/profiles/lookup/keys', send({ key: SECOND_SENTINEL_KEY, label: 'second' }));
    await harness.json('/profiles/lookup/activate', { method: 'POST' });
    harness.simulator.script({ kind: 'text', status: 429, text: RATE_LIMITED, contentType: 'application/json', path: '/chat/completions' });
    harness.simulator.script({
      kind: 'text',
      status: 404,
      text: MODEL_NOT_FOUND,
      contentType: 'application/json',
      path: '/chat/completions',
    });
    const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(answer.status).toBe(404);
    const [, second] = sentKeys();
    expect(modelLookups()).toEqual([second]);
  });
});

describe('a 429 for a secret the pool no longer holds', () => {
  it('the key in use given a new secret while its attempt ran: the old secret’s 429 does not cool the new one', async () => {
    let ownId = '';
    const { answer } = await changeKeyDuringAttempt(429, RATE_LIMITED, ({ own }) => {
      ownId = own;
      // The user replaces the secret because it is rate limited; the request sent with the old one is answered after.
      return harness.json(`/profiles/pool/keys/${own}/secret`, send({ key: NEW_SECRET }, 'PUT'));
    });
    expect(answer.status).toBe(200);
    const { profiles } = await harness.json<ProfileListResponse>('/profiles');
    const pool = profiles.find((view) => view.profile.id === 'pool')?.keyPool ?? [];
    expect(pool.find((key) => key.id === ownId)?.status).toEqual({ state: 'ready' });
  });
});
