import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

// A client that stops reading must stop the upstream too (the proxy must not buffer the answer for it),
// and get every byte once it reads again. Far more than the kernel's socket buffers hold in between:
// two connections (gateway to proxy, proxy to client), each a sender's and a receiver's buffer at
// their largest. Linux grows a receive buffer to tcp_rmem's maximum (32 MiB on some machines) as
// fast as the reader's pace allows, so how far it grew before the client paused depends on the
// machine's speed: a fixed 24 MiB bound failed under a busy loop per core with 31 MiB in flight.
const KERNEL_BUFFER_BYTES = 2 * (kernelBufferMax('tcp_rmem', 6 * 1024 * 1024) + kernelBufferMax('tcp_wmem', 4 * 1024 * 1024));
/** What the proxy itself may hold of a held-back answer: a few reads in flight, never the answer. */
const PROXY_HELD_MAX_BYTES = 8 * 1024 * 1024;
const ANSWER_BYTES = Math.max(48 * 1024 * 1024, KERNEL_BUFFER_BYTES + PROXY_HELD_MAX_BYTES + 16 * 1024 * 1024);
const PIECE_BYTES = 64 * 1024;
const SETTLE_SAMPLE_MS = 100;
const SETTLE_MAX_MS = 5_000;

type Kind = 'json' | 'sse';

/** A socket buffer's largest size as the kernel's autotuning may grow it (the third of /proc's three numbers). */
function kernelBufferMax(name: 'tcp_rmem' | 'tcp_wmem', otherwise: number): number {
  try {
    const largest = Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]);
    return Number.isFinite(largest) && largest > 0 ? largest : otherwise;
  } catch {
    return otherwise;
  }
}

/** One piece of the answer, numbered so a lost or reordered piece changes the hash. */
function piece(kind: Kind, index: number): Buffer {
  const label = String(index).padStart(8, '0');
  if (kind === 'json') return Buffer.alloc(PIECE_BYTES, label);
  const content = label.repeat((PIECE_BYTES - 64) / label.length);
  return Buffer.from(`data: {"choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`);
}

let upstream: Server;
let harness: Harness;
/** Bytes the upstream's socket took of the current answer, and whether it got to the end. */
const sent = { bytes: 0, ended: false };

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const kind: Kind = req.url?.includes('chat') === true ? 'sse' : 'json';
    res.writeHead(200, { 'content-type': kind === 'sse' ? 'text/event-stream' : 'application/octet-stream' });
    sent.bytes = 0;
    sent.ended = false;
    let index = 0;
    const pump = (): void => {
      while (sent.bytes < ANSWER_BYTES) {
        const next = piece(kind, index);
        index += 1;
        sent.bytes += next.length;
        if (!res.write(next)) return void res.once('drain', pump);
      }
      res.end(kind === 'sse' ? 'data: [DONE]\n\n' : undefined);
      sent.ended = true;
    };
    pump();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  harness = await startHarness({ profile: { baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` } });
});

afterAll(async () => {
  await harness.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

/** A POST of `body`, or a GET without one (a download). */
function open(path: string, body: string | null): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const options = body === null ? { method: 'GET' } : { method: 'POST', headers: { 'content-type': 'application/json' } };
    const req = request(`${harness.proxy.url}${path}`, options, resolve);
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** Waits until the upstream has stopped sending (a sample with no new bytes), within a bound. */
async function upstreamSettled(): Promise<void> {
  let before = -1;
  for (let waitedMs = 0; waitedMs < SETTLE_MAX_MS && sent.bytes !== before; waitedMs += SETTLE_SAMPLE_MS) {
    before = sent.bytes;
    await delay(SETTLE_SAMPLE_MS);
  }
}

async function readAll(res: IncomingMessage): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

function expectedAnswer(kind: Kind): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  let bytes = 0;
  for (let index = 0; bytes < ANSWER_BYTES; index += 1) {
    const next = piece(kind, index);
    hash.update(next);
    bytes += next.length;
  }
  if (kind === 'sse') {
    hash.update('data: [DONE]\n\n');
    bytes += 'data: [DONE]\n\n'.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

describe('a client that stops reading', () => {
  it.each([
    { kind: 'json' as const, path: '/v1/embeddings', body: JSON.stringify({ model: 'text-embedding-3-small', input: 'x' }) },
    // A generated video's download (OpenAI's GET /videos/{id}/content, new-api's copy): hundreds of MB.
    { kind: 'json' as const, path: '/v1/videos/video_1/content', body: null },
    { kind: 'sse' as const, path: '/v1/chat/completions', body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [] }) },
  ])('$kind from $path: holds the upstream back until it reads again, then gets every byte in order', async ({ kind, path, body }) => {
    const res = await open(path, body);
    expect(res.statusCode).toBe(200);
    res.pause();
    await upstreamSettled();
    expect(sent.ended).toBe(false);
    expect(sent.bytes).toBeLessThan(KERNEL_BUFFER_BYTES + PROXY_HELD_MAX_BYTES);
    const received = await readAll(res);
    expect(sent.ended).toBe(true);
    expect(received).toEqual(expectedAnswer(kind));
  });
});
