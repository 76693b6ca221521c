import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { startServer, type ProxyHandle } from '../../../proxy/http/startServer.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

// A non-stream answer that breaks after its headers: the client must see a cut connection, never a short 200 body.
let upstream: Server;
let proxy: ProxyHandle;
const ends: Extract<RequestLifecycleEvent, { type: 'end' }>[] = [];

beforeAll(async () => {
  upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    // Cut once the partial body is on its way, so the proxy has seen the headers and a first chunk.
    res.write('{"id":"partial","choices":[', () => res.socket?.destroy());
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const profile = profileSchema.parse({
    id: 'cut',
    name: 'Cut',
    baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    retry: { maxRetries: 0 },
  });
  const events = new RequestEvents();
  events.subscribe((event) => {
    if (event.type === 'end') ends.push(event);
  });
  proxy = await startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    events,
    services: {
      authenticator: { authenticate: () => ({ tokenName: 'tests', pinnedProfileId: null }) },
      targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
    },
  });
});
afterAll(async () => {
  await proxy.stop();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

function getCut(url: string): Promise<{ status: number; received: string; failure: string | null }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let received = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        received += text;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, received, failure: null }));
      res.on('error', (error) => resolve({ status: res.statusCode ?? 0, received, failure: error.message }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a non-stream answer broken mid-body', () => {
  it('cuts the client connection and logs the break', async () => {
    const outcome = await getCut(`${proxy.url}/v1/models`);
    expect(outcome.status).toBe(200);
    expect(outcome.received).toBe('{"id":"partial","choices":[');
    expect(outcome.failure).not.toBeNull();
    await expect.poll(() => ends.length).toBe(1);
    expect(ends[0]?.errorClass).toBe('stream_interrupted');
  });
});
