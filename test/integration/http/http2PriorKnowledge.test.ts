import { connect as connectHttp2 } from 'node:http2';
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
