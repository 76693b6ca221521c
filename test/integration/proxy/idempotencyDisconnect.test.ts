import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyCache } from '../../../proxy/spend/idempotencyCache.ts';
import { profileSchema, type Profile } from '../../../proxy/contracts/profile.ts';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

let simulator: GatewaySimulator;
let proxy: ProxyHandle;
const ends: EndEvent[] = [];
/** Profiles handed out by the next resolves, in order; then the default one. */
const nextProfiles: Profile[] = [];
let defaultProfile: Profile;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  defaultProfile = profileSchema.parse({ id: 'main', name: 'Main', baseUrl: simulator.baseUrl, retry: { maxRetries: 0 } });
  proxy = await startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    services: {
      authenticator: { authenticate: () => ({ tokenName: 'tests', pinnedProfileId: null }) },
      targets: { resolve: () => ({ profile: nextProfiles.shift() ?? defaultProfile, apiKey: SENTINEL_KEY }) },
    },
    idempotency: new IdempotencyCache(),
  });
  proxy.events.subscribe((event) => {
    if (event.type === 'end') ends.push(event);
  });
});
afterAll(async () => {
  await proxy.stop();
  await simulator.close();
});
beforeEach(() => {
  simulator.reset();
  ends.length = 0;
});

const IMAGE_BODY = JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse' });

const createImage = (idempotencyKey: string) =>
  rawRequest(`${proxy.url}/v1/images/generations`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': idempotencyKey },
    body: IMAGE_BODY,
  });

const creations = (): number => simulator.received.filter((received) => received.path === '/v1/images/generations').length;

/** Sends a keyed creation and returns a function that makes its client leave, without having read anything. */
function createImageThenLeave(idempotencyKey: string): () => void {
  const req = request(`${proxy.url}/v1/images/generations`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': idempotencyKey },
  });
  req.on('error', () => undefined);
  req.end(IMAGE_BODY);
  return () => req.destroy();
}

/** A port that was free a moment ago and has nothing listening now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a keyed image creation whose client leaves before the answer (a task that may have run is never sent twice)', () => {
  it("is not given up: the gateway's answer is kept, and the repeat gets it without a second creation", async () => {
    const held = simulator.holdNext('/images/generations');
    const leave = createImageThenLeave('left-1');
    await held.arrived;
    leave();
    // The proxy has seen the client go (the response closed) before the gateway answers.
    await expect.poll(() => proxy.inFlightCount()).toBe(0);
    held.release();

    const repeat = await createImage('left-1');
    expect(repeat.status, repeat.body).toBe(200);
    expect(repeat.headers['x-airlock-idempotent-replay']).toBe('true');
    const first = ends.find((end) => end.status === 200 && end.bodies.responseBody !== null);
    expect(repeat.body).toBe(first?.bodies.responseBody?.toString('utf8'));
    expect(JSON.parse(repeat.body).data[0].url).toMatch(/^https:\/\/images\.simulator\.invalid\//);
    expect(creations()).toBe(1);
  });

  it("answers a repeat that comes while the first still runs with the first's answer once it arrives", async () => {
    const held = simulator.holdNext('/images/generations');
    const leave = createImageThenLeave('left-2');
    await held.arrived;
    leave();
    await expect.poll(() => proxy.inFlightCount()).toBe(0);
    const repeat = createImage('left-2');
    await expect.poll(() => proxy.inFlightCount()).toBe(1);
    held.release();

    const [answered, again] = [await repeat, await createImage('left-2')];
    expect(answered.status, answered.body).toBe(200);
    expect(again.body).toBe(answered.body);
    expect(creations()).toBe(1);
  });

  it('refuses a repeat with 409 once it waited its total timeout while the first still runs, and never sends it', async () => {
    const held = simulator.holdNext('/images/generations');
    const first = createImage('slow-1');
    await held.arrived;
    // The repeat's profile allows it a short total time; the first keeps its own.
    nextProfiles.push(profileSchema.parse({ ...defaultProfile, timeouts: { totalTimeoutMs: 1_000 } }));
    const repeat = await createImage('slow-1');

    expect(repeat.status).toBe(409);
    const error = JSON.parse(repeat.body).error as { code: string; message: string };
    expect(error.code).toBe('idempotency_key_in_progress');
    expect(error.message).toMatch(/still running.*not sent twice.*same idempotency key.*new key/);
    expect(creations()).toBe(1);

    held.release();
    const answered = await first;
    expect(answered.status).toBe(200);
    expect((await createImage('slow-1')).body).toBe(answered.body);
    expect(creations()).toBe(1);
  });

  it('gives up a first that never reached the gateway (connection refused), so its repeat is sent', async () => {
    nextProfiles.push(profileSchema.parse({ ...defaultProfile, baseUrl: `http://127.0.0.1:${await closedPort()}/v1` }));
    const refused = await createImage('refused-1');
    expect(refused.status, refused.body).toBe(502);

    const repeat = await createImage('refused-1');
    expect(repeat.status).toBe(200);
    expect(repeat.headers['x-airlock-idempotent-replay']).toBeUndefined();
    expect(creations()).toBe(1);
  });
});
