import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createUndiciFloorProxy } from '../../bench/undiciFloor.ts';

const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An upstream that answers with the SHA-256 and length of the body it got. */
function hashingUpstream(): Server {
  return createServer((req, res) => {
    const hash = createHash('sha256');
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    req.on('end', () => res.end(JSON.stringify({ sha256: hash.digest('hex'), bytes })));
  });
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('the undici floor (bench)', () => {
  it.each([
    ['piping the body', false],
    ['reading the body whole first', true],
  ])('forwards a body sent in many pieces byte for byte, %s', async (_how, readBodyFirst) => {
    const upstreamUrl = await listen(hashingUpstream());
    const proxyUrl = await listen(createUndiciFloorProxy(upstreamUrl, { readBodyFirst }));
    const pieces = Array.from({ length: 40 }, (_, index) => Buffer.alloc(50_000 + index, index));
    const response = await request(`${proxyUrl}/v1/embeddings`, { method: 'POST', body: Readable.from(pieces) });
    const expected = createHash('sha256').update(Buffer.concat(pieces)).digest('hex');
    expect(await response.body.json()).toEqual({ sha256: expected, bytes: pieces.reduce((sum, piece) => sum + piece.length, 0) });
  });
});
