import { connect as connectHttp2 } from 'node:http2';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

/** HTTP/2 GOAWAY's error code for "use HTTP/1.1" (RFC 9113 section 7). */
const HTTP_1_1_REQUIRED = 0xd;

/** HTTP/2's connection preface (RFC 9113 section 3.4). */
const HTTP2_PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

describe('a client that speaks HTTP/2 with prior knowledge (h2c)', () => {
  it('is told in HTTP/2 to use HTTP/1.1, and nothing reaches the gateway', async () => {
    // node:http2 speaks HTTP/2 over plain TCP from the first byte, as curl --http2-prior-knowledge does.
    const session = connectHttp2(harness.proxy.url);
    let sessionError = 'none';
    session.on('error', (error: NodeJS.ErrnoException) => {
      sessionError = error.code ?? error.message;
    });
    const goaway = new Promise<{ errorCode: number | null; why: string }>((resolve) => {
      session.once('goaway', (errorCode, _lastStreamId, opaqueData) => resolve({ errorCode, why: opaqueData?.toString('utf8') ?? '' }));
      session.once('close', () => resolve({ errorCode: null, why: `closed without a GOAWAY (session error: ${sessionError})` }));
    });
    const stream = session.request({ ':method': 'POST', ':path': '/v1/chat/completions', 'content-type': 'application/json' });
    stream.on('error', () => undefined);
    stream.end(chatBody());

    const answer = await goaway;
    expect(answer.errorCode, answer.why).toBe(HTTP_1_1_REQUIRED);
    expect(answer.why).toContain('HTTP/1.1');
    session.destroy();
    expect(harness.simulator.received).toHaveLength(0);
  });
});

describe('an HTTP/2 preface after an HTTP/1.1 request on the same connection', () => {
  it('writes no HTTP/2 frame into the HTTP/1.1 answer, and the request is not logged as answered', async () => {
    harness.simulator.reset();
    const body = chatBody({ stream: true });
    const request =
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${harness.proxy.port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const ended = harness.nextEnd();
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect(harness.proxy.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      // A client that pipelines bytes no HTTP/1.1 client sends: the preface is HTTP/2's only at a connection's start.
      socket.write(`${request}${HTTP2_PREFACE}`);
    });
    // Before: the GOAWAY frames went out where the stream's head belonged, the answer was lost, and the row said 200.
    expect(received.startsWith('HTTP/1.1 '), JSON.stringify(received.slice(0, 80))).toBe(true);
    expect(await ended).not.toMatchObject({ status: 200, errorClass: null });
  });
});
