import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyCache } from '../../../proxy/spend/idempotencyCache.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

let simulator: GatewaySimulator;
let proxy: ProxyHandle;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  // No retries here: a keyed creation may be retried by policy, which would hide the first answer.
  const profile = profileSchema.parse({ id: 'main', name: 'Main', baseUrl: simulator.baseUrl, retry: { maxRetries: 0 } });
  proxy = await startServer({
    port: 0,
    services: {
      authenticator: { authenticate: () => ({ tokenName: 'tests', pinnedProfileId: null }) },
      targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
    },
    idempotency: new IdempotencyCache(),
  });
});
afterAll(async () => {
  await proxy.stop();
  await simulator.close();
});
beforeEach(() => simulator.reset());

const createImage = (headers: Record<string, string>) =>
  rawRequest(`${proxy.url}/v1/images/generations`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse' }),
  });

describe('image creation with an idempotency key', () => {
  it('answers a repeat from the first answer and never creates the image twice', async () => {
    const first = await createImage({ 'idempotency-key': 'task-42' });
    const repeat = await createImage({ 'idempotency-key': 'task-42' });
    expect(first.status).toBe(200);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toBe(first.body);
    expect(repeat.headers['x-airlock-idempotent-replay']).toBe('true');
    expect(simulator.received).toHaveLength(1);
  });

  it('creates again for another key, or without one', async () => {
    const a = await createImage({ 'idempotency-key': 'task-a' });
    const b = await createImage({ 'idempotency-key': 'task-b' });
    const unkeyed = await createImage({});
    expect(new Set([a.body, b.body, unkeyed.body]).size).toBe(3);
    expect(simulator.received).toHaveLength(3);
  });

  it('does not store a refusal by the gateway, so a fixed request can go again', async () => {
    simulator.script({ kind: 'status', status: 400 });
    expect((await createImage({ 'idempotency-key': 'task-400' })).status).toBe(400);
    expect((await createImage({ 'idempotency-key': 'task-400' })).status).toBe(200);
    expect(simulator.received).toHaveLength(2);
  });

  it('keeps a broken first attempt, so an unknown outcome is never resent', async () => {
    simulator.script({ kind: 'status', status: 502 });
    const first = await createImage({ 'idempotency-key': 'task-502' });
    const repeat = await createImage({ 'idempotency-key': 'task-502' });
    expect(first.status).toBe(502);
    expect(repeat.status).toBe(502);
    expect(simulator.received).toHaveLength(1);
  });
});
