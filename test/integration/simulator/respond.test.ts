import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { writeInTwoParts } from '../../simulator/respond.ts';

/**
 * A test pauses an answer mid-body (the `text` fault's `pausedAt`) on a promise of its own: one
 * whose client left first, or that failed before settling it, must not leave the simulator's
 * handler waiting for that promise, as writeRawChunks does not (settledUnlessClosed).
 */
const FIRST = 'the first part, ';
const BODY = Buffer.from(`${FIRST}then the second`);
const NEVER_SETTLES = new Promise<never>(() => undefined);

/** Serves one request with writeInTwoParts, its client leaving at the first part: what the writing came to. */
async function writtenToLeavingClient(encoding?: string): Promise<{ written: Promise<void>; response: ServerResponse }> {
  let handled!: (outcome: { written: Promise<void>; response: ServerResponse }) => void;
  const outcome = new Promise<{ written: Promise<void>; response: ServerResponse }>((resolve) => {
    handled = resolve;
  });
  const server = createServer((_req, response) => {
    const closed = new AbortController();
    response.once('close', () => closed.abort());
    response.writeHead(200, encoding === undefined ? {} : { 'content-encoding': encoding });
    handled({ written: writeInTwoParts(response, BODY, FIRST.length, NEVER_SETTLES, closed.signal, encoding), response });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const req = request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (res) => res.once('data', () => req.destroy()));
  req.on('error', () => undefined);
  req.end();
  try {
    return await outcome;
  } finally {
    server.close();
  }
}

describe('writeInTwoParts, its client gone while `until` has not settled', () => {
  it.each([
    ['as is', undefined],
    ['gzip', 'gzip'],
  ])('%s: returns, without writing the second part', async (_name, encoding) => {
    const { written, response } = await writtenToLeavingClient(encoding);
    await written;
    expect(response.writableEnded).toBe(false);
  });
});
