import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyCache } from '../../../proxy/spend/idempotencyCache.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

let simulator: GatewaySimulator;
let proxy: ProxyHandle;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  // No retries here: a keyed creation may be retried by policy, which would hide the first answer.
  const profile = profileSchema.parse({ id: 'main', name: 'Main', baseUrl: simulator.baseUrl, retry: { maxRetries: 0 } });
  proxy = await startServer({
    commandHint: PLAIN_HINT,
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

const createImage = (headers: Record<string, string>, prompt = 'a lighthouse') =>
  rawRequest(`${proxy.url}/v1/images/generations`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ model: 'gpt-image-1', prompt }),
  });

/** An image edit as a form, with the boundary a client draws anew for each attempt. */
const editImage = (headers: Record<string, string>, boundary: string, prompt: string) =>
  rawRequest(`${proxy.url}/v1/images/edits`, {
    method: 'POST',
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: [
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ngpt-image-1\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n${prompt}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nPNGDATA\r\n`,
      `--${boundary}--\r\n`,
    ].join(''),
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

  // IETF draft-ietf-httpapi-idempotency-key-header §2.7 (error scenarios): a key reused with
  // another payload is answered 422; Stripe likewise errors when a key's parameters differ.
  it('refuses the same key with another body (422, logged) instead of replaying the first answer', async () => {
    const ends: { status: number; errorClass: string | null }[] = [];
    const unsubscribe = proxy.events.subscribe((event) => {
      if (event.type === 'end') ends.push({ status: event.status, errorClass: event.errorClass });
    });
    const first = await createImage({ 'idempotency-key': 'task-changed' }, 'a lighthouse');
    const changed = await createImage({ 'idempotency-key': 'task-changed' }, 'a red barn');
    unsubscribe();
    expect(first.status).toBe(200);
    expect(changed.status).toBe(422);
    expect(changed.headers['x-airlock-idempotent-replay']).toBeUndefined();
    expect(JSON.parse(changed.body)).toMatchObject({ error: { code: 'idempotency_key_reused_with_different_request' } });
    expect(ends.at(-1)).toEqual({ status: 422, errorClass: 'invalid_request' });
    expect(simulator.received).toHaveLength(1);
    // The first request's own repeat is still answered from its answer.
    expect((await createImage({ 'idempotency-key': 'task-changed' }, 'a lighthouse')).body).toBe(first.body);
  });

  it('refuses another body at once while the first with its key is still running', async () => {
    const held = simulator.holdNext('/images/generations');
    const first = createImage({ 'idempotency-key': 'task-running' }, 'a lighthouse');
    await held.arrived;
    const changed = await createImage({ 'idempotency-key': 'task-running' }, 'a red barn');
    expect(changed.status).toBe(422);
    held.release();
    expect((await first).status).toBe(200);
    expect(simulator.received).toHaveLength(1);
  });

  it('takes a form sent again with a new boundary as the same request, and another prompt as a different one', async () => {
    const first = await editImage({ 'idempotency-key': 'edit-1' }, 'boundary-attempt-1', 'add a boat');
    const retried = await editImage({ 'idempotency-key': 'edit-1' }, 'boundary-attempt-2', 'add a boat');
    const changed = await editImage({ 'idempotency-key': 'edit-1' }, 'boundary-attempt-3', 'add a bird');
    expect(first.status).toBe(200);
    expect(retried.body).toBe(first.body);
    expect(retried.headers['x-airlock-idempotent-replay']).toBe('true');
    expect(changed.status).toBe(422);
    expect(simulator.received).toHaveLength(1);
  });
});
