import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { profileSchema, type Profile } from '../../../proxy/contracts/profile.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

// A gateway that fails a request while its large body is still arriving: the retry or the fallback
// step sends the whole body, waiting for what the client has not sent yet (proxy/forward/arrivingBody.ts).
const MIB = 1024 * 1024;

interface Received {
  model: string;
  bytes: number;
  body: Buffer;
}

let upstream: Server;
const received: Received[] = [];
/** Resolved when the gateway has answered its first request, before that request's body ended. */
let firstFailed: Promise<void>;
let markFirstFailed: () => void = () => undefined;
/** How the gateway answers the first request at its first bytes: an overload that closes, unless a test says otherwise. */
let firstAnswer = { status: 503, close: true };

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (received.length === 0) {
      received.push({ model: '', bytes: 0, body: Buffer.alloc(0) });
      // Answered at the first bytes, the rest unread: a gateway's own overload answer.
      req.once('data', () => {
        res.writeHead(firstAnswer.status, { 'content-type': 'application/json', ...(firstAnswer.close ? { connection: 'close' } : {}) });
        res.end('{"error":{"message":"refused at its start","type":"server_error"}}', () => markFirstFailed());
      });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const model = /"model":"([^"]+)"/.exec(body.subarray(0, 200).toString('utf8'))?.[1] ?? '';
      received.push({ model, bytes: body.length, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.1] }],
          model,
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function proxyWith(profileInput: Partial<Profile>, events = new RequestEvents(), requestTimeoutMs?: number): Promise<ProxyHandle> {
  const profile = profileSchema.parse({
    id: 'early',
    name: 'Early failure',
    baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    ...profileInput,
  });
  return startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    events,
    services: {
      authenticator: { authenticate: () => ({ tokenName: 'tests', pinnedProfileId: null }) },
      targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
    },
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
  });
}

/** Uploads `body` but its last kilobyte, which goes once the gateway has failed the first request. */
async function uploadAfterFirstFailure(proxy: ProxyHandle, body: Buffer): Promise<number> {
  received.length = 0;
  firstFailed = new Promise((resolve) => (markFirstFailed = resolve));
  const req = request(`${proxy.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
  });
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  req.write(body.subarray(0, body.length - 1024));
  await firstFailed;
  req.end(body.subarray(body.length - 1024));
  const [res] = await answered;
  res.resume();
  await once(res, 'end');
  return res.statusCode ?? 0;
}

const body = Buffer.from(`{"model":"text-embedding-3-small","input":"${'y'.repeat(2 * MIB)}"}`);

describe('a gateway failure while the body still arrives', () => {
  it('is retried with the whole body once it has arrived', async () => {
    const proxy = await proxyWith({ retry: { maxRetries: 1, maxRetryAfterMs: 8000 } } as Partial<Profile>);
    try {
      expect(await uploadAfterFirstFailure(proxy, body)).toBe(200);
      expect(received).toHaveLength(2);
      expect(received[1]?.body.equals(body)).toBe(true);
    } finally {
      await proxy.stop();
    }
  });

  it('goes to the fallback step with the whole body once it has arrived', async () => {
    const proxy = await proxyWith({
      retry: { maxRetries: 0 },
      fallbacks: [{ model: 'text-embedding-3-large' }],
    } as Partial<Profile>);
    try {
      expect(await uploadAfterFirstFailure(proxy, body)).toBe(200);
      expect(received).toHaveLength(2);
      expect(received[1]?.model).toBe('text-embedding-3-large');
      expect(received[1]?.bytes).toBe(body.length);
    } finally {
      await proxy.stop();
    }
  });

  it('marks the logged body cut when the gateway answered before the upload ended, saying how much had arrived', async () => {
    const events = new RequestEvents();
    const ended = new Promise<Extract<RequestLifecycleEvent, { type: 'end' }>>((resolve) =>
      events.subscribe((event) => {
        if (event.type === 'end') resolve(event);
      }),
    );
    const proxy = await proxyWith({ retry: { maxRetries: 0 } } as Partial<Profile>, events);
    firstAnswer = { status: 400, close: false };
    try {
      received.length = 0;
      const req = request(`${proxy.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      });
      const answered = once(req, 'response') as Promise<[IncomingMessage]>;
      req.write(body.subarray(0, body.length - 1024));
      const [res] = await answered;
      res.resume();
      await once(res, 'end');
      expect(res.statusCode).toBe(400);
      const end = await ended;
      req.end(body.subarray(body.length - 1024));
      expect(end.bodies.requestBody?.length).toBeLessThan(body.length);
      expect(end.bodies.requestBodyTruncated).toBe(true);
      expect(end.logNotes?.join(' ')).toMatch(new RegExp(`the client had sent \\d+ of its ${body.length} declared bytes`));
    } finally {
      firstAnswer = { status: 503, close: true };
      await proxy.stop();
    }
  });

  /**
   * A fallback profile whose first step's gateway refuses (503, connection kept: with Connection: close
   * mid-upload the proxy may see a reset instead) while the body's last kilobyte never comes: what
   * the client is answered and the request's end event.
   */
  async function stallDuringFallback(profile: Partial<Profile>, requestTimeoutMs: number) {
    const events = new RequestEvents();
    const ended = new Promise<Extract<RequestLifecycleEvent, { type: 'end' }>>((resolve) =>
      events.subscribe((event) => {
        if (event.type === 'end') resolve(event);
      }),
    );
    const proxy = await proxyWith(
      {
        retry: { maxRetries: 0 },
        fallbacks: [{ model: 'text-embedding-3-large' }, { model: 'text-embedding-ada-002' }],
        ...profile,
      } as Partial<Profile>,
      events,
      requestTimeoutMs,
    );
    firstAnswer = { status: 503, close: false };
    try {
      received.length = 0;
      const req = request(`${proxy.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      });
      req.on('error', () => undefined);
      const answered = once(req, 'response') as Promise<[IncomingMessage]>;
      req.write(body.subarray(0, body.length - 1024));
      const [res] = await answered;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      await once(res, 'end');
      req.destroy();
      const error = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: { type: string; message: string } }).error;
      return { res, error, end: await ended };
    } finally {
      firstAnswer = { status: 503, close: true };
      await proxy.stop();
    }
  }

  it("ends as the upload stall it is when the fallback step's wait for the body meets the request timeout: a 408, nothing billed", async () => {
    const requestTimeoutMs = 1000;
    const { res, error, end } = await stallDuringFallback({}, requestTimeoutMs);
    expect(res.statusCode).toBe(408);
    expect(error.type).toBe('upload_stalled');
    expect(error.message).toContain(`the client had sent ${body.length - 1024} of its ${body.length} declared bytes`);
    expect(error.message).toContain(`request timeout (${requestTimeoutMs} ms`);
    expect(end).toMatchObject({ status: 408, errorClass: 'upload_stalled', usage: null, costCredits: null });
    // The failed step, then the step that could not be sent, once: no later step waits for a body that will not come.
    const chain = end.fallback?.chain ?? [];
    expect(chain).toHaveLength(2);
    expect(chain[0]).toEqual({ profileId: 'early', model: 'text-embedding-3-small', status: 503, errorClass: 'upstream_error' });
    expect(chain[1]).toMatchObject({ errorClass: 'upload_stalled', model: 'text-embedding-3-large', status: null });
    expect(received).toHaveLength(1);
  });

  it("ends the fallback step's wait for a stalled body at the profile's total timeout, not at the request timeout", async () => {
    const totalTimeoutMs = 1000;
    // Far longer than the total: reached first, the 408 would name it.
    const { res, error, end } = await stallDuringFallback({ timeouts: { totalTimeoutMs } } as Partial<Profile>, 8000);
    expect(res.statusCode).toBe(408);
    expect(res.headers['x-should-retry']).toBeUndefined();
    expect(error.type).toBe('upload_stalled');
    expect(error.message).toContain(`the client had sent ${body.length - 1024} of its ${body.length} declared bytes`);
    expect(error.message).toContain(`the profile's total timeout (${totalTimeoutMs} ms) ran out`);
    expect(end).toMatchObject({ status: 408, errorClass: 'upload_stalled', usage: null, costCredits: null });
    const chain = end.fallback?.chain ?? [];
    expect(chain).toHaveLength(2);
    expect(chain[1]).toMatchObject({ errorClass: 'upload_stalled', model: 'text-embedding-3-large', status: null });
    expect(received).toHaveLength(1);
  });
});
