import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { HELD_BYTES, stalledError, stalledUpload } from '../../support/stalledUpload.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

// A client whose upload stalls meets the proxy server's requestTimeout (Node's, 300 s unless
// lowered) before the profile's 30-minute total. Without a 'clientError' listener, Node 24 writes a
// bare "408 Request Timeout" and closes the connection (socketOnError, lib/_http_server.js), so the
// client learns nothing and the row read as a client that left. The timeout is lowered through the
// server's own options: mocking node:http would lower the simulator's too.
const REQUEST_TIMEOUT_MS = 1000;
const MIB = 1024 * 1024;

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** Writes `bytes` on a raw connection and resolves with all the proxy sends before it closes. */
async function rawExchange(harness: Harness, bytes: string): Promise<string> {
  const socket = connect(harness.proxy.port, '127.0.0.1');
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(bytes);
  await once(socket, 'close');
  return Buffer.concat(chunks).toString('utf8');
}

function anthropicError(payload: Record<string, unknown>): { type: string; message: string } {
  expect(payload.type).toBe('error');
  const error = payload.error as { type: string; message: string };
  expect(error.type).toBe('invalid_request_error');
  return error;
}

function openAiError(payload: Record<string, unknown>): { type: string; message: string } {
  const error = payload.error as { type: string; message: string };
  expect(error.type).toBe('upload_stalled');
  return error;
}

describe("an upload that outlasts the proxy server's requestTimeout", () => {
  it('sent on early: the client gets a 408 upload_stalled naming the request timeout, and the gateway ran nothing', async () => {
    harness = await startHarness({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const body = Buffer.from(`{"model":"text-embedding-3-small","input":"${'x'.repeat(2 * MIB)}"}`);
    const ended = harness.nextEnd();
    const running = harness;
    const answer = await stalledUpload(running, body, () => running.simulator.nextBodyStart('/embeddings'));
    expect(answer.headers.connection).toBe('close');
    const error = stalledError(answer, body);
    expect(error.message).toContain(`request timeout (${REQUEST_TIMEOUT_MS} ms`);
    expect(error.message).toContain('the gateway was stopped before its end');
    // Retryable, as the total timeout's 408: a client whose upload recovers may send it again.
    expect(answer.headers['x-should-retry']).toBeUndefined();
    expect(answer.text).not.toContain(SENTINEL_KEY);
    const end = await ended;
    expect(end).toMatchObject({ status: 408, errorClass: 'upload_stalled', usage: null, costCredits: null });
    expect(end.errorMessage).toContain(`request timeout (${REQUEST_TIMEOUT_MS} ms`);
    expect(end.bodies.requestBodyTruncated).toBe(true);
    await harness.simulator.waitForClose(0, 5000);
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('read whole first: the client gets a 408 upload_stalled, and nothing was sent to the gateway', async () => {
    harness = await startHarness({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const body = Buffer.from(`{"model":"text-embedding-3-small","input":"${'x'.repeat(1000)}"}`);
    const ended = harness.nextEnd();
    // Nothing reaches the gateway to wait for: the answer itself is the event.
    const answer = await stalledUpload(harness, body, () => Promise.resolve());
    expect(answer.headers.connection).toBe('close');
    const error = stalledError(answer, body);
    expect(error.message).toContain(`request timeout (${REQUEST_TIMEOUT_MS} ms`);
    expect(answer.text).not.toContain(SENTINEL_KEY);
    const end = await ended;
    expect(end).toMatchObject({ status: 408, errorClass: 'upload_stalled', usage: null, costCredits: null });
    expect(harness.simulator.received).toHaveLength(0);
  });

  // Each protocol answers in its own shape (proxy/protocols/*/errors.ts): Anthropic's `type: "error"`
  // envelope for Messages, whose type for a 4xx it lists no type of its own for is invalid_request_error
  // (docs.claude.com/en/api/errors: "We may also use this error type for other 4XX status codes");
  // OpenAI's, with Airlock's class as its type, for Responses. Messages and Responses are read whole
  // before planning (their adapters translate), so a stall meets the whole read at any size.
  // The Anthropic SDK retries a 408 by its status, whatever its type says.
  it.each([
    {
      shape: 'Anthropic Messages',
      path: '/v1/messages',
      request: { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'x'.repeat(1000) }] },
      errorOf: anthropicError,
    },
    {
      shape: 'Anthropic Messages, a body past the early-forward size (Messages is translated, so read whole)',
      path: '/v1/messages',
      request: { model: 'claude-sonnet-4-5', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'x'.repeat(2 * MIB) }] },
      errorOf: anthropicError,
    },
    {
      shape: 'Responses, streamed and past the early-forward size',
      path: '/v1/responses',
      request: { model: 'gpt-4o-mini', stream: true, input: 'x'.repeat(2 * MIB) },
      errorOf: openAiError,
    },
    {
      shape: 'Responses',
      path: '/v1/responses',
      request: { model: 'gpt-4o-mini', input: 'x'.repeat(1000) },
      errorOf: openAiError,
    },
  ])(
    'in the $shape shape: a 408 that says the upload stalled, how much came and which limit ran out',
    async ({ path, request, errorOf }) => {
      harness = await startHarness({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
      const body = Buffer.from(JSON.stringify(request));
      const ended = harness.nextEnd();
      const answer = await stalledUpload(harness, body, () => Promise.resolve(), path);
      expect(answer.status).toBe(408);
      expect(answer.headers.connection).toBe('close');
      expect(answer.headers['x-should-retry']).toBeUndefined();
      const error = errorOf(JSON.parse(answer.text) as Record<string, unknown>);
      expect(error.message).toContain(`the client had sent ${body.length - HELD_BYTES} of its ${body.length} declared bytes`);
      expect(error.message).toContain(`request timeout (${REQUEST_TIMEOUT_MS} ms`);
      expect(error.message).toContain('Nothing was sent to the gateway.');
      const end = await ended;
      expect(end).toMatchObject({ status: 408, errorClass: 'upload_stalled', usage: null, costCredits: null });
      expect(harness.simulator.received).toHaveLength(0);
    },
  );

  it('with no request to answer (its headers never ended): a plain JSON 408, then the connection closes', async () => {
    harness = await startHarness({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const text = await rawExchange(harness, `POST /v1/embeddings HTTP/1.1\r\nHost: 127.0.0.1:${harness.proxy.port}\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    const payload = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { type: string; message: string } };
    expect(payload.error.type).toBe('upload_stalled');
    expect(payload.error.message).toContain(`request timeout (${REQUEST_TIMEOUT_MS} ms`);
    expect(harness.simulator.received).toHaveLength(0);
  });

  it("keeps Node's own answer to every other client error (a malformed request: a bare 400)", async () => {
    harness = await startHarness({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const text = await rawExchange(harness, 'NOT HTTP AT ALL\r\n\r\n');
    expect(text).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
});
