import { Agent, request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

const MIB = 1024 * 1024;
/** The profile's limit in these tests. */
const LIMIT_MIB = 1;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    profile: { maxRequestBodyMiB: LIMIT_MIB, protocolModes: { messages: 'translate', responses: 'translate' } },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

/** A chat body of exactly `bytes` bytes. */
function chatOfSize(bytes: number): Buffer {
  const empty = chatBody({ messages: [{ role: 'user', content: '' }] });
  const body = Buffer.from(chatBody({ messages: [{ role: 'user', content: 'x'.repeat(bytes - Buffer.byteLength(empty)) }] }));
  expect(body.length).toBe(bytes);
  return body;
}

function readAll(res: IncomingMessage): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', reject);
  });
}

function expectLimitMessage(message: string): void {
  expect(message).toContain(`${LIMIT_MIB} MiB`);
  expect(message).toContain('profile "test"');
  expect(message).toContain('airlock profile set test --max-body-mib');
  expect(message).toContain('maxRequestBodyMiB in airlock.json');
  expect(message).toContain('Airlock window');
}

describe('the request body limit of a profile', () => {
  it('refuses a declared size past the limit with a 413 that names the limit and where to raise it, and sends nothing', async () => {
    const body = chatOfSize(LIMIT_MIB * MIB + 1);
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(413);
    const error = (JSON.parse(response.body) as { error: { message: string; type: string; code: string } }).error;
    expect(error).toMatchObject({ type: 'request_too_large', code: 'request_too_large' });
    expectLimitMessage(error.message);
    expect(error.message).toContain('1.0 MiB');
    expect(harness.simulator.received).toHaveLength(0);
    const end = harness.events.findLast((event) => event.type === 'end');
    expect(end).toMatchObject({ status: 413, errorClass: 'request_too_large' });
  });

  it('lets a body of exactly the limit through', async () => {
    const body = chatOfSize(LIMIT_MIB * MIB);
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    expect(harness.simulator.received[0]?.body.length).toBe(body.length);
  });

  it('answers a client that waits for 100-continue with the 413 at once, so it never uploads the body', async () => {
    const declared = 300 * MIB;
    const req = request(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'content-length': String(declared), expect: '100-continue' },
    });
    const first = new Promise<{ kind: 'continue' } | { kind: 'response'; res: IncomingMessage }>((resolve, reject) => {
      req.once('continue', () => resolve({ kind: 'continue' }));
      req.once('response', (res) => resolve({ kind: 'response', res }));
      req.once('error', reject);
    });
    req.flushHeaders();
    const outcome = await first;
    // Before the limit, Node told the client to go on and the proxy waited for 300 MiB.
    expect(outcome.kind).toBe('response');
    if (outcome.kind !== 'response') return;
    const answer = await readAll(outcome.res);
    req.destroy();
    expect(answer.status).toBe(413);
    // The body was never sent, so the connection cannot carry another request.
    expect(answer.headers.connection).toBe('close');
    expectLimitMessage((JSON.parse(answer.body) as { error: { message: string } }).error.message);
    expect(answer.body).toContain('300.0 MiB');
  });

  it.each([
    ['the guards refuse it (a foreign web page)', { origin: 'https://evil.example' }, false, 403],
    ['Airlock is paused', {}, true, 403],
  ])('never asks for the body of a request refused before it is read: %s', async (_label, headers, paused, status) => {
    harness.proxy.setPaused(paused);
    try {
      const req = request(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, ...headers, 'content-length': '100', expect: '100-continue' },
      });
      const first = new Promise<string | number>((resolve, reject) => {
        req.once('continue', () => resolve('continue'));
        req.once('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.once('error', reject);
      });
      req.flushHeaders();
      expect(await first).toBe(status);
      req.destroy();
    } finally {
      harness.proxy.setPaused(false);
    }
  });

  it('stops reading a chunked body when it passes the limit and answers while the client is still sending', async () => {
    const req = request(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' },
    });
    let answer: IncomingMessage | null = null;
    const answered = new Promise<IncomingMessage>((resolve) => req.once('response', (res) => resolve(res)));
    void answered.then((res) => (answer = res));
    const piece = Buffer.from(`${'x'.repeat(64 * 1024 - 1)},`);
    req.write('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"');
    // Up to eight times the limit; before the limit, the proxy read all of it and answered only at the end.
    for (let written = 0; answer === null && written < 8 * LIMIT_MIB * MIB; written += piece.length) {
      if (!req.write(piece)) await new Promise((resolve) => req.once('drain', resolve));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const answeredWhileSending = answer !== null;
    req.end('"}]}');
    const response = await readAll(await answered);
    expect(answeredWhileSending).toBe(true);
    expect(response.status).toBe(413);
    const message = (JSON.parse(response.body) as { error: { message: string } }).error.message;
    expect(message).toContain(`passed ${LIMIT_MIB} MiB`);
    expectLimitMessage(message);
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('keeps the connection for the next request after refusing a body the client sent anyway', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<unknown>();
      const send = (body: Buffer): Promise<{ status: number }> =>
        new Promise((resolve, reject) => {
          const req = request(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', agent, headers: JSON_HEADERS }, (res) => {
            sockets.add(req.socket);
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
          });
          req.on('error', reject);
          req.end(body);
        });
      expect((await send(chatOfSize(3 * MIB))).status).toBe(413);
      expect((await send(Buffer.from(chatBody()))).status).toBe(200);
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('refuses in Anthropic’s shape on /v1/messages', async () => {
    const body = Buffer.alloc(LIMIT_MIB * MIB + 10, 0x20);
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' },
      body,
    });
    expect(response.status).toBe(413);
    const parsed = JSON.parse(response.body) as { type: string; error: { type: string; message: string } };
    expect(parsed).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    expectLimitMessage(parsed.error.message);
  });
});
