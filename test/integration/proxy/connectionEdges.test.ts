import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

/** A model list first, so the next request goes out on the connection it left in the pool. */
async function warmPool(): Promise<void> {
  expect((await rawRequest(`${harness.proxy.url}/v1/models`)).status).toBe(200);
  harness.simulator.reset();
}

// RFC 9110 section 9.2.2: a request whose connection closed before any answer may be sent again
// only when sending it twice does what sending it once does. docs/gateway-spec.md section 7 rule 3:
// when it is unknown whether the gateway ran it, it is not resent. The keep-alive race
// (upstreamExecution.ts closedWhileIdle) is another close: of a connection idle a second or more,
// as servers' idle timeouts close them; this one was in use a moment before (idleClose.test.ts).
describe('the gateway closes a pooled connection as the request goes out on it', () => {
  it('a chat POST is not sent again, since the gateway may have read and billed it', async () => {
    await warmPool();
    harness.simulator.script({ kind: 'closeUnanswered' });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    const end = await ended;
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'network' } });
    expect(end).toMatchObject({ errorClass: 'network', retries: 0 });
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('a GET is sent again and answered', async () => {
    await warmPool();
    harness.simulator.script({ kind: 'closeUnanswered' });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/models`);
    const end = await ended;
    expect(response.status).toBe(200);
    expect(end).toMatchObject({ errorClass: null, retries: 1 });
    expect(harness.simulator.received).toHaveLength(2);
    // The first attempt called no model: nothing of it may be billed, so nothing is priced or said of it.
    expect(end).toMatchObject({ usage: null, costCredits: null });
    expect(end.logNotes ?? []).not.toContainEqual(expect.stringMatching(/May be billed/));
  });
});

describe('an answer with trailer fields after its chunked body', () => {
  it('is relayed whole and its usage read; the trailers, hop-by-hop, stay behind', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: chatAnswerText('hi'),
      trailers: { 'x-checksum': 'abc' },
    });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    const end = await ended;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ choices: [{ message: { content: 'hi' } }] });
    expect(response.headers.trailer).toBeUndefined();
    expect(end).toMatchObject({ errorClass: null, usage: { inputTokens: 7, outputTokens: 5 } });
  });
});

describe('a client that sends its headers and part of its body, then leaves', () => {
  it('sends nothing to the gateway and ends its row as the client’s abort', async () => {
    const socket = connect(harness.proxy.port, '127.0.0.1');
    const ended = harness.nextEnd();
    // curl's way for a large body: the headers, then the body once told to go on (or after waiting
    // 1 s: https://curl.se/libcurl/c/CURLOPT_EXPECT_100_TIMEOUT_MS.html). The 100 comes at once.
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${harness.proxy.port}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n',
    );
    const first = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
    expect(first).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    socket.write('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"');
    socket.destroy();
    const end = await ended;
    expect(end).toMatchObject({ status: 499, errorClass: 'client_aborted', usage: null, costCredits: null });
    expect(harness.simulator.received).toHaveLength(0);
  });
});
