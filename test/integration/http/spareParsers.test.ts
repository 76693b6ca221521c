import { Agent, createServer, get, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RECLAIM_OPTIONS } from '../../../proxy/core/memoryReclaimer.ts';
import { startForwardingReclaimer } from '../../../proxy/http/forwardingReclaimer.ts';
import { closeSpareHttpParsers } from '../../../proxy/http/spareParsers.ts';
import { mallocInUseBytes } from '../../support/mallocInUse.ts';

const CONNECTIONS = 100;
/** node:http's list of parsers kept for later connections, read as the module under test finds it. */
const spareParsers = (createRequire(import.meta.url)('node:_http_common') as { parsers: { list: unknown[] } }).parsers.list;
const spareHttpParserCount = (): number => spareParsers.length;
let server: Server | null = null;

afterEach(async () => {
  const closing = server;
  server = null;
  if (closing !== null) await new Promise((resolve) => closing.close(resolve));
});

/** Settles once every server-side socket accepted so far has closed and node:http has handled its close. */
let serverSocketsClosed: Promise<void>[] = [];

async function listen(): Promise<number> {
  const listening = createServer((_req, res) => res.end('ok'));
  // Added after node:http's own listeners, so each runs once node:http has let go of the socket's parser.
  listening.on('connection', (socket) => serverSocketsClosed.push(new Promise((resolve) => socket.once('close', () => resolve()))));
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return (listening.address() as AddressInfo).port;
}

/** One request on each of `count` connections open at once; resolves once every connection has closed on both sides. */
async function burst(port: number, count: number): Promise<string[]> {
  serverSocketsClosed = [];
  const agent = new Agent({ keepAlive: true, maxSockets: count });
  const bodies = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve, reject) => {
          get({ host: '127.0.0.1', port, agent }, (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve(body));
          }).on('error', reject);
        }),
    ),
  );
  agent.destroy();
  await Promise.all(serverSocketsClosed);
  return bodies;
}

describe('closeSpareHttpParsers', () => {
  it("closes node:http's parsers of closed connections, hands their memory back, and a later connection still gets one", async () => {
    const port = await listen();
    await burst(port, CONNECTIONS);
    const heldBytes = mallocInUseBytes();
    // Both sides' parsers of the burst (this test is the client too) went to the one spare list.
    expect(closeSpareHttpParsers()).toBeGreaterThanOrEqual(CONNECTIONS);
    // About 10 KB of malloc each, outside V8's heap: freed by the close itself, no collection needed.
    expect(heldBytes - mallocInUseBytes()).toBeGreaterThan(CONNECTIONS * 5 * 1024);
    expect(closeSpareHttpParsers()).toBe(0);
    expect(await burst(port, 2)).toEqual(['ok', 'ok']);
  });

  it("is what the forwarding thread's reclaimer does once it has been idle for its checks", async () => {
    const port = await listen();
    await burst(port, CONNECTIONS);
    expect(spareHttpParserCount()).toBeGreaterThanOrEqual(CONNECTIONS);
    // Idle at every check, from the first, and never a collection: the long-idle work runs at each check.
    const options = {
      ...DEFAULT_RECLAIM_OPTIONS,
      checkIntervalMs: 10,
      idleIntervals: 1,
      maxIdleUtilization: 1,
      minGrowthBytes: Number.MAX_SAFE_INTEGER,
      startupCollectionMs: null,
    };
    const reclaimer = startForwardingReclaimer(() => false, options);
    try {
      await expect.poll(spareHttpParserCount, { timeout: 10_000 }).toBe(0);
    } finally {
      reclaimer.stop();
    }
  });
});
