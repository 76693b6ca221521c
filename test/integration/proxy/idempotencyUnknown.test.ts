import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyCache } from '../../../proxy/spend/idempotencyCache.ts';
import { profileSchema, type Profile } from '../../../proxy/contracts/profile.ts';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/**
 * A gateway whose image creation streams: it sends a first event, then waits for the test to say
 * how the stream goes on (finish it, or cut the connection). The simulator does not stream images.
 */
interface StreamingGateway {
  baseUrl: string;
  creations: number;
  /** Resolves with the creation's response once its first event is out. */
  nextCreation(): Promise<ServerResponse>;
  close(): Promise<void>;
}

async function startStreamingGateway(): Promise<StreamingGateway> {
  const waiters: ((res: ServerResponse) => void)[] = [];
  const gateway = { creations: 0 } as StreamingGateway;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.once('end', () => {
      gateway.creations += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"image_generation.partial_image","partial_image_index":0}\n\n');
      waiters.shift()?.(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gateway.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  gateway.nextCreation = () => new Promise((resolve) => waiters.push(resolve));
  gateway.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return gateway;
}

const FINAL_EVENT = 'data: {"type":"image_generation.completed","b64_json":"aW1hZ2U="}\n\n';
const IMAGE_BODY = JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse', stream: true });

let gateway: StreamingGateway | null = null;
const proxies: ProxyHandle[] = [];
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.stop();
  await gateway?.close();
  gateway = null;
});

async function startProxy(profile: Profile, idempotency: IdempotencyCache): Promise<{ proxy: ProxyHandle; ends: EndEvent[] }> {
  const proxy = await startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    services: {
      authenticator: { authenticate: () => ({ tokenName: 'tests', pinnedProfileId: null }) },
      targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
    },
    idempotency,
  });
  proxies.push(proxy);
  const ends: EndEvent[] = [];
  proxy.events.subscribe((event) => {
    if (event.type === 'end') ends.push(event);
  });
  return { proxy, ends };
}

function nextEnd(proxy: ProxyHandle): Promise<EndEvent> {
  return new Promise((resolve) => {
    const unsubscribe = proxy.events.subscribe((event) => {
      if (event.type !== 'end') return;
      unsubscribe();
      resolve(event);
    });
  });
}

const createImage = (proxy: ProxyHandle, idempotencyKey: string) =>
  rawRequest(`${proxy.url}/v1/images/generations`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': idempotencyKey },
    body: IMAGE_BODY,
  });

/** A keyed streamed creation whose client reads its first event; resolves then, with a way to leave. */
function createImageStream(proxy: ProxyHandle, idempotencyKey: string): Promise<{ leave: () => void; body: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${proxy.url}/v1/images/generations`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'idempotency-key': idempotencyKey },
    });
    req.on('error', () => undefined);
    req.once('response', (res) => {
      let text = '';
      const body = new Promise<string>((done) => {
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.once('end', () => done(text));
        res.once('close', () => done(text));
      });
      res.once('data', () => resolve({ leave: () => req.destroy(), body }));
    });
    req.once('error', reject);
    req.end(IMAGE_BODY);
  });
}

async function setUp(): Promise<{ proxy: ProxyHandle; ends: EndEvent[]; profile: Profile; idempotency: IdempotencyCache }> {
  gateway = await startStreamingGateway();
  const profile = profileSchema.parse({ id: 'main', name: 'Main', baseUrl: gateway.baseUrl, retry: { maxRetries: 0 } });
  const idempotency = new IdempotencyCache();
  return { ...(await startProxy(profile, idempotency)), profile, idempotency };
}

describe('a keyed streamed creation that got no complete answer', () => {
  it('is read to its end when its client leaves, and the repeat gets the whole stream without a second creation', async () => {
    const { proxy } = await setUp();
    const creation = gateway!.nextCreation();
    const first = await createImageStream(proxy, 'left-stream');
    const upstream = await creation;
    const ended = nextEnd(proxy);
    first.leave();
    await expect.poll(() => proxy.inFlightCount()).toBe(0);
    upstream.end(FINAL_EVENT);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });

    const repeat = await createImage(proxy, 'left-stream');
    expect(repeat.status, repeat.body).toBe(200);
    expect(repeat.headers['x-airlock-idempotent-replay']).toBe('true');
    expect(repeat.headers['content-type']).toMatch(/text\/event-stream/);
    expect(repeat.body).toContain(FINAL_EVENT.trim());
    expect(gateway!.creations).toBe(1);
  });

  it('is refused with a 409 on repeat when the gateway cut its stream, never replayed as an answer', async () => {
    const { proxy } = await setUp();
    const creation = gateway!.nextCreation();
    const first = await createImageStream(proxy, 'cut-stream');
    const ended = nextEnd(proxy);
    (await creation).destroy();
    expect(await ended).toMatchObject({ errorClass: 'stream_interrupted' });
    await first.body;

    const repeat = await createImage(proxy, 'cut-stream');
    expect(repeat.status, repeat.body).toBe(409);
    expect(JSON.parse(repeat.body).error).toMatchObject({ code: 'idempotency_key_reused' });
    expect(JSON.parse(repeat.body).error.message).toMatch(/no complete answer.*unknown/);
    expect(gateway!.creations).toBe(1);
  });

  it('is refused with a 409 on repeat, by the next proxy too, when a stop ended it', async () => {
    const { proxy, profile, idempotency } = await setUp();
    const creation = gateway!.nextCreation();
    const first = await createImageStream(proxy, 'stopped-stream');
    await creation;
    await proxy.stop({ drainMs: 0 });
    expect(await first.body).toContain('proxy_stopping');

    const { proxy: next } = await startProxy(profile, idempotency);
    const repeat = await createImage(next, 'stopped-stream');
    expect(repeat.status, repeat.body).toBe(409);
    expect(JSON.parse(repeat.body).error).toMatchObject({ code: 'idempotency_key_reused' });
    expect(gateway!.creations).toBe(1);
  });
});
