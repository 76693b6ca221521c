import { brotliCompressSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';

const MIB = 1024 * 1024;
const ENCODERS: Record<string, (bytes: string | Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
  zstd: zstdCompressSync,
};

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelAliases: { 'my-model': 'deepseek-chat' }, maxRequestBodyMiB: 1 } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

function post(path: string, coding: string, body: Buffer): ReturnType<typeof rawRequest> {
  return rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: { ...JSON_HEADERS, 'content-encoding': coding }, body });
}

// Codex CLI compresses its Responses requests with zstd (its `enable_request_compression` feature).
describe('compressed request bodies', () => {
  it.each(Object.keys(ENCODERS))('decodes a %s chat body and sends the gateway plain JSON', async (coding) => {
    const ended = harness.nextEnd();
    const response = await post('/v1/chat/completions', coding, ENCODERS[coding]!(chatBody({ model: 'my-model' })));
    expect(response.status).toBe(200);
    expect((await ended).errorClass).toBeNull();
    const sent = harness.simulator.received[0]!;
    expect(sent.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(sent.body.toString('utf8')).model).toBe('deepseek-chat');
  });

  it('translates a zstd Responses request as Codex sends it', async () => {
    const ended = harness.nextEnd();
    const body = JSON.stringify({ model: 'my-model', input: 'hi', stream: true });
    const response = await post('/v1/responses', 'zstd', zstdCompressSync(body));
    expect(response.status).toBe(200);
    expect((await ended).errorClass).toBeNull();
    expect(harness.simulator.received[0]!.headers['content-encoding']).toBeUndefined();
  });

  // The rule answers follow (compressedAnswers.test.ts): a character set or `none` named as the coding labels plain bytes.
  it.each(['utf-8', 'UTF-8', 'none'])('reads a body labelled %s as the plain JSON it is, and sends it unlabelled', async (coding) => {
    const ended = harness.nextEnd();
    const response = await post('/v1/chat/completions', coding, Buffer.from(chatBody({ model: 'my-model' })));
    expect(response.status, response.body).toBe(200);
    expect((await ended).errorClass).toBeNull();
    const sent = harness.simulator.received[0]!;
    expect(sent.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(sent.body.toString('utf8')).model).toBe('deepseek-chat');
  });

  it('refuses bytes that are not what their coding says, naming the coding', async () => {
    const ended = harness.nextEnd();
    const response = await post('/v1/chat/completions', 'gzip', Buffer.from(chatBody()));
    expect(response.status).toBe(400);
    expect(response.body).toContain('content-encoding: gzip');
    expect((await ended).errorMessage).toContain('content-encoding: gzip');
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('refuses a coding it cannot decode with 415, naming it', async () => {
    const ended = harness.nextEnd();
    const response = await post('/v1/chat/completions', 'compress', Buffer.from(chatBody()));
    expect(response.status).toBe(415);
    expect((await ended).errorMessage).toContain('content-encoding: compress');
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('holds the decoded body to the profile limit, so a small coded body cannot unpack past it', async () => {
    const ended = harness.nextEnd();
    const body = chatBody({ messages: [{ role: 'user', content: ' '.repeat(2 * MIB) }] });
    const response = await post('/v1/chat/completions', 'gzip', gzipSync(body));
    expect(response.status).toBe(413);
    expect((await ended).errorClass).toBe('request_too_large');
    expect(harness.simulator.received).toHaveLength(0);
  });
});
