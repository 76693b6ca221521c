import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SLEEP_SEEN_AFTER_MS } from '../../../proxy/forward/sleepWatch.ts';
import { leaveConnectionsFromBeforeSleep } from '../../../proxy/forward/upstreamAgents.ts';
import { startRaceServer, type RaceServer } from '../../support/raceServer.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS } from '../../support/http.ts';

/**
 * A laptop that slept with a kept-alive connection to the gateway and woke on another network: the
 * connection is dead, and a request written on it meets silence, no reset (played here by a
 * 127.0.0.1 server that reads the connection's next request and never answers nor closes). The
 * idle timeout is short so that a request sent on it ends by itself.
 */

let harness: Harness | null = null;
let gateway: RaceServer | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  await harness?.close();
  await gateway?.close();
  harness = null;
  gateway = null;
});

describe('the first request after a sleep', () => {
  it('goes out on a new connection, not on one kept alive from before the sleep', async () => {
    gateway = await startRaceServer(({ connection, onConnection }) => (connection === 1 && onConnection > 1 ? 'silence' : 'answer'));
    harness = await startHarness({
      profile: { baseUrl: gateway.url, timeouts: { connectTimeoutMs: 5000, idleTimeoutMs: 1000, totalTimeoutMs: 60_000 } },
    });
    expect((await harness.postChat()).response.status).toBe(200);

    // What the proxy does on the first request after it sees the machine slept (sleepWatch.ts).
    leaveConnectionsFromBeforeSleep();
    const { response, end } = await harness.postChat();

    expect(response.status).toBe(200);
    expect(end.retries).toBe(0);
    expect(gateway.requests).toEqual([
      { connection: 1, onConnection: 1 },
      { connection: 2, onConnection: 1 },
    ]);
  });

  it('is seen by the forwarding itself: a wall clock that ran ahead of the monotonic one while the machine slept', async () => {
    gateway = await startRaceServer(({ connection, onConnection }) => (connection === 1 && onConnection > 1 ? 'silence' : 'answer'));
    harness = await startHarness({
      profile: { baseUrl: gateway.url, timeouts: { connectTimeoutMs: 5000, idleTimeoutMs: 1000, totalTimeoutMs: 60_000 } },
    });
    expect((await harness.postChat()).response.status).toBe(200);

    // On Linux the monotonic clock stands still through a suspend: played by setting it back past
    // the bound (sleepWatch.ts), as the wall clock cannot be moved from a test. Every use reads it
    // through performance.now(), so the step is seen by the dispatcher look-up (agentFor).
    const monotonicMs = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => monotonicMs() - 2 * SLEEP_SEEN_AFTER_MS);
    const { response } = await harness.postChat();

    expect(response.status).toBe(200);
    expect(gateway.requests.at(-1)).toEqual({ connection: 2, onConnection: 1 });
  });
});

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/**
 * The error the OS gives a connection TCP keep-alive found dead (undici turns keep-alive on: 60 s
 * idle, then libuv's 10 probes 1 s apart): on a read, ETIMEDOUT. A stream open across a sleep on
 * another network ends so; loopback always answers the probes, so the socket is given that error.
 */
function keepAliveTimedOut(): Error {
  return Object.assign(new Error('read ETIMEDOUT'), { code: 'ETIMEDOUT', errno: -110, syscall: 'read' });
}

/** Each client protocol's streamed request, and how its stream says it failed. */
const CLIENTS = [
  { protocol: 'chat', path: '/v1/chat/completions', body: chatBody({ stream: true }), failure: /^data: \{"error"/ },
  {
    protocol: 'messages',
    path: '/v1/messages',
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    failure: /^event: error\ndata: \{"type":"error"/,
  },
  {
    protocol: 'responses',
    path: '/v1/responses',
    body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', stream: true, store: false }),
    failure: /"type":"response\.failed"/,
  },
];

describe('a stream open across a sleep whose connection died', () => {
  it.each(CLIENTS)(
    '$protocol: ends with a cut stream in its shape, not a connect timeout, and the row says so',
    async ({ path, body: sentBody, failure }) => {
      harness = await startHarness({});
      const streamed = chunk('Once upon ');
      harness.simulator.script({
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: `${streamed}${chunk('a time')}`,
        stallAfterBytes: Buffer.byteLength(streamed),
      });
      let upstreamSocket: Socket | null = null;
      const onSend = (message: unknown): void => {
        upstreamSocket = (message as { socket: Socket }).socket;
      };
      subscribe('undici:client:sendHeaders', onSend);
      const ended = harness.nextEnd();
      const body = await new Promise<string>((resolve, reject) => {
        const sent = request(`${harness!.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (piece: string) => {
            // The first piece came: the machine sleeps, and TCP keep-alive finds the connection dead after it wakes.
            if (text === '') upstreamSocket?.destroy(keepAliveTimedOut());
            text += piece;
          });
          response.on('end', () => resolve(text));
          response.on('error', reject);
        });
        sent.on('error', reject);
        sent.end(sentBody);
      }).finally(() => unsubscribe('undici:client:sendHeaders', onSend));

      const end = await ended;
      expect(end.errorClass).toBe('stream_interrupted');
      expect(body).toContain('Once upon ');
      const lastFrame = body.trim().split('\n\n').at(-1) ?? '';
      expect(lastFrame).toMatch(failure);
      expect(lastFrame).not.toMatch(/connect/i);
    },
  );
});
