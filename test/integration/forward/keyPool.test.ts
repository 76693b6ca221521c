import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../simulator/dialects.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody } from '../../support/http.ts';
import { startPooledAirlock, type PooledAirlock } from '../../support/pooledAirlock.ts';
import { SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A pooled profile through the real proxy (startAirlock) against a gateway that limits each key on
 * its own (test/simulator/keyLimits.ts): keys in turn, a 429 moving the request to the next key,
 * a pool whose keys all wait, and a rejected key left out.
 */
const FIRST = { id: 'main', label: 'first', secret: SENTINEL_KEY };
const SECOND = { id: 'b2', label: 'second', secret: SECOND_SENTINEL_KEY };
const MESSAGES_BODY = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });

let simulator: GatewaySimulator;
let pooled: PooledAirlock | null = null;

beforeAll(async () => {
  simulator = await startGatewaySimulator({ validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY] });
});
afterEach(async () => {
  await pooled?.stop();
  pooled = null;
  simulator.reset();
  simulator.setKeyRequestLimits({});
  simulator.useDialect('seed');
});
afterAll(async () => {
  await simulator.close();
});

/** Which key each request reached the gateway with, by its last four characters (the recorder masks the rest). */
function keysReceived(): string[] {
  return simulator.received.map((received) => {
    const authorization = String(received.headers.authorization);
    if (authorization.endsWith(SENTINEL_KEY.slice(-4))) return 'first';
    if (authorization.endsWith(SECOND_SENTINEL_KEY.slice(-4))) return 'second';
    return authorization;
  });
}

async function start(keys = [FIRST, SECOND]): Promise<PooledAirlock> {
  pooled = await startPooledAirlock({ baseUrl: simulator.baseUrl, keys });
  return pooled;
}

describe('a key pool through the proxy', () => {
  it('uses the keys in turn, and the log says which key served each request', async () => {
    const airlock = await start();
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const response = await airlock.call('/v1/chat/completions', chatBody());
      expect(response.status).toBe(200);
      ids.push(String(response.headers['x-airlock-request-id']));
    }
    expect(keysReceived()).toEqual(['first', 'second', 'first', 'second']);
    const detail = await airlock.detail(ids[1] ?? '');
    expect(detail.gatewayKeys).toEqual([{ keyId: 'b2', label: 'second' }]);
  });

  it.each<{ dialect: DialectName; path: string; body: string; retryAfterS: number; cooldownS: number }>([
    { dialect: 'openai', path: '/v1/chat/completions', body: chatBody(), retryAfterS: 45, cooldownS: 45 },
    { dialect: 'litellm', path: '/v1/messages', body: MESSAGES_BODY, retryAfterS: 33, cooldownS: 33 },
    // new-api says nothing of when the key frees: the default cooldown (20 s) applies.
    { dialect: 'new-api', path: '/v1/chat/completions', body: chatBody({ stream: true }), retryAfterS: 99, cooldownS: 20 },
  ])(
    '$dialect: a per-key 429 moves the request to the next key at once and cools the key for the gateway’s time ($path)',
    async ({ dialect, path, body, retryAfterS, cooldownS }) => {
      simulator.useDialect(dialect);
      simulator.setKeyRequestLimits({ [SENTINEL_KEY]: 0 }, retryAfterS);
      const airlock = await start();
      const before = Date.now();
      const response = await airlock.call(path, body);
      const after = Date.now();
      expect(response.status).toBe(200);
      expect(keysReceived()).toEqual(['first', 'second']);
      expect(simulator.received.map((received) => received.authOk)).toEqual([true, true]);

      const view = await airlock.profileView();
      const first = view.keyPool?.find((key) => key.id === 'main');
      expect(first?.status.state).toBe('cooling');
      const untilMs = first?.status.state === 'cooling' ? first.status.untilMs : 0;
      expect(untilMs).toBeGreaterThanOrEqual(before + cooldownS * 1000);
      expect(untilMs).toBeLessThanOrEqual(after + cooldownS * 1000);
      expect(view.keyPool?.find((key) => key.id === 'b2')?.status).toEqual({ state: 'ready' });

      const detail = await airlock.detail(String(response.headers['x-airlock-request-id']));
      expect(detail.gatewayKeys).toEqual([
        { keyId: 'main', label: 'first' },
        { keyId: 'b2', label: 'second' },
      ]);
      expect(detail.retries).toBe(1);

      // The cooling key is left out of the turn: the next request goes to the second key directly.
      expect((await airlock.call(path, body)).status).toBe(200);
      expect(keysReceived()).toEqual(['first', 'second', 'second']);
    },
  );

  it("moving to the next key does not use up the profile's retries: a 503 on that key is still retried", async () => {
    simulator.setKeyRequestLimits({ [SENTINEL_KEY]: 0 }, 30);
    // Taken by the first request a key limit lets through: the second key's first attempt.
    simulator.script({ kind: 'status', status: 503 });
    const airlock = await startPooledAirlock({
      baseUrl: simulator.baseUrl,
      keys: [FIRST, SECOND],
      profile: { retry: { maxRetries: 1, maxRetryAfterMs: 8_000 } },
    });
    pooled = airlock;
    const response = await airlock.call('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(keysReceived()).toEqual(['first', 'second', 'second']);
    const detail = await airlock.detail(String(response.headers['x-airlock-request-id']));
    // The row counts every resend, the key switch included.
    expect(detail.retries).toBe(2);
  });

  it('every key cooling: a 429 in the client’s protocol saying so and when the first key frees, then refused without asking the gateway', async () => {
    simulator.useDialect('openai');
    simulator.setKeyRequestLimits({ [SENTINEL_KEY]: 0, [SECOND_SENTINEL_KEY]: 0 }, 30);
    const airlock = await start();
    const chat = await airlock.call('/v1/chat/completions', chatBody());
    expect(chat.status).toBe(429);
    expect(keysReceived()).toEqual(['first', 'second']);
    expect(Number(chat.headers['retry-after'])).toBeGreaterThanOrEqual(29);
    expect(Number(chat.headers['retry-after'])).toBeLessThanOrEqual(30);
    const chatError = (JSON.parse(chat.body) as { error: { type: string; message: string } }).error;
    expect(chatError.type).toBe('keys_cooling');
    expect(chatError.message).toMatch(/Every key of profile "Pooled" \(pool\) is rate limited .* can be used again in \d+ s/);

    const messages = await airlock.call('/v1/messages', MESSAGES_BODY);
    expect(messages.status).toBe(429);
    expect(messages.headers['retry-after']).toBeDefined();
    const anthropic = JSON.parse(messages.body) as { type: string; error: { type: string; message: string } };
    expect(anthropic.type).toBe('error');
    expect(anthropic.error.type).toBe('rate_limit_error');
    expect(anthropic.error.message).toContain('Every key of profile "Pooled"');
    // Refused by the pool itself: the gateway saw no third request.
    expect(simulator.received).toHaveLength(2);
  });

  it('a key rejected while the other key cools: the client hears that the pool waits, not that its key is bad', async () => {
    simulator.setKeyRequestLimits({ [SENTINEL_KEY]: 0 }, 30);
    const airlock = await start([FIRST, { ...SECOND, secret: 'sk-airlock-not-a-valid-key-0000000000000000' }]);
    const response = await airlock.call('/v1/chat/completions', chatBody());
    expect(simulator.received.map((received) => received.authOk)).toEqual([true, false]);
    // A 401 tells Claude Code and the SDKs to sign in again; the pool has a good key, which frees in 30 s.
    expect(response.status).toBe(429);
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(29);
    expect((JSON.parse(response.body) as { error: { type: string } }).error.type).toBe('keys_cooling');
  });

  it('a key the gateway rejects is skipped from then on, and the window says it was rejected', async () => {
    const airlock = await start([{ ...FIRST, secret: 'sk-airlock-not-a-valid-key-0000000000000000' }, SECOND]);
    const response = await airlock.call('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(simulator.received.map((received) => received.authOk)).toEqual([false, true]);
    for (let index = 0; index < 3; index += 1) expect((await airlock.call('/v1/chat/completions', chatBody())).status).toBe(200);
    expect(simulator.received.map((received) => received.authOk)).toEqual([false, true, true, true, true]);
    const first = (await airlock.profileView()).keyPool?.find((key) => key.id === 'main');
    expect(first?.status).toMatchObject({ state: 'rejected', status: 401 });
    // One bad key does not stop its profile: the profile's own breaker stays shut.
    expect((await airlock.profileView()).key.set).toBe(true);
  });
});

describe('a key pool with a fallback list', () => {
  it('sends the next step with the key the request moved to, not the one it started with', async () => {
    // The first key's 429 moves the request to the second key, whose 503 ends the first step; the
    // fallback model is then asked with the second key (the first is cooling for 30 s).
    simulator.script({ kind: 'status', status: 429, retryAfterS: 30 }, { kind: 'status', status: 503 });
    const airlock = await startPooledAirlock({
      baseUrl: simulator.baseUrl,
      keys: [FIRST, SECOND],
      profile: { retry: { maxRetries: 0, maxRetryAfterMs: 8_000 }, fallbacks: [{ model: 'deepseek-chat' }] },
    });
    pooled = airlock;
    const response = await airlock.call('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(keysReceived()).toEqual(['first', 'second', 'second']);
    const detail = await airlock.detail(String(response.headers['x-airlock-request-id']));
    expect(detail.fallbackChain?.map((hop) => hop.model)).toEqual(['gpt-4o-mini', 'deepseek-chat']);
    expect(detail.gatewayKeys?.map((use) => use.label)).toEqual(['first', 'second', 'second']);
  });
});
