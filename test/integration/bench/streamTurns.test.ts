import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { measureStreamingInTurns } from '../../bench/scenarios.ts';

const servers: Server[] = [];

/** An SSE upstream that streams `deltas` content deltas and [DONE], noting its name in `arrivals` per request. */
async function streamingServer(name: string, deltas: number, arrivals: string[]): Promise<string> {
  const server = createServer((_req, res) => {
    arrivals.push(name);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let index = 0; index < deltas; index += 1) res.write(`data: {"choices":[{"delta":{"content":"t${index}"}}]}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('streams measured in turns (bench)', () => {
  it('gives every target the same number of streams, one at a time, who goes first rotating', async () => {
    const arrivals: string[] = [];
    const urls = {
      first: await streamingServer('first', 3, arrivals),
      second: await streamingServer('second', 3, arrivals),
      third: await streamingServer('third', 3, arrivals),
    };
    const results = await measureStreamingInTurns(urls, 2, 3);
    // One warm-up stream each, then rounds starting with the first target, then the second.
    expect(arrivals).toEqual(['first', 'second', 'third', 'first', 'second', 'third', 'second', 'third', 'first']);
    for (const result of Object.values(results)) expect(result).toMatchObject({ streams: 2, incompleteStreams: 0 });
  });

  it('counts a target whose streams stop short as incomplete, and only that one', async () => {
    const arrivals: string[] = [];
    const urls = { whole: await streamingServer('whole', 3, arrivals), short: await streamingServer('short', 2, arrivals) };
    const results = await measureStreamingInTurns(urls, 2, 3);
    expect(results.whole.incompleteStreams).toBe(0);
    expect(results.short.incompleteStreams).toBe(2);
  });
});
