import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPY_SLICE_BYTES } from '../../../proxy/core/copyInSlices.ts';
import { closeUpstreamAgents } from '../../../proxy/forward/upstreamAgents.ts';
import { dispatchUpstream } from '../../../proxy/forward/upstreamClient.ts';

interface Received {
  headers: IncomingHttpHeaders;
  sha256: string;
  bytes: number;
}

let server: Server;
let port = 0;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const hash = createHash('sha256');
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, sha256: hash.digest('hex'), bytes });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await closeUpstreamAgents();
  await new Promise((resolve) => server.close(resolve));
});

/** Bytes that differ from slice to slice, so a piece sent twice, out of order or dropped changes the hash. */
function numberedBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index += 4) bytes.writeUInt32LE(index >>> 2, index);
  return bytes;
}

// Bodies past one slice go out a slice a turn (inTurnSlices); smaller ones as before. Either way the
// gateway gets the declared length and every byte in order.
describe.each([
  { name: 'one chunk under a slice', chunkBytes: [COPY_SLICE_BYTES / 2] },
  { name: 'one chunk of three slices and a bit', chunkBytes: [3 * COPY_SLICE_BYTES + 12] },
  { name: 'several chunks across slice edges', chunkBytes: [COPY_SLICE_BYTES - 4, 8, 2 * COPY_SLICE_BYTES + 4] },
])('a request body upstream: $name', ({ chunkBytes }) => {
  it('arrives whole, in order, with its content-length and no chunked framing', async () => {
    const whole = numberedBytes(chunkBytes.reduce((sum, bytes) => sum + bytes, 0));
    const chunks: Buffer[] = [];
    let offset = 0;
    for (const bytes of chunkBytes) {
      chunks.push(whole.subarray(offset, offset + bytes));
      offset += bytes;
    }
    received.length = 0;
    const answer = await dispatchUpstream({
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(whole.length) },
      body: chunks,
      signal: new AbortController().signal,
      connectTimeoutMs: 5_000,
      idleTimeoutMs: 30_000,
    });
    expect(answer.statusCode).toBe(200);
    await expect.poll(() => received.length).toBe(1);
    const [got] = received;
    expect(got?.bytes).toBe(whole.length);
    expect(got?.sha256).toBe(createHash('sha256').update(whole).digest('hex'));
    expect(got?.headers['content-length']).toBe(String(whole.length));
    expect(got?.headers['transfer-encoding']).toBeUndefined();
  });
});
