import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveFrame } from '../../../../proxy/contracts/liveEvents.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { CONTROL_TOKEN, setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

/**
 * A window that stops reading its live feed (frozen, or busy) while agents stream: past the
 * feed's buffer limit it is dropped and reconnects to a fresh snapshot. Ended instead, it kept its
 * connection, and the next frame or heartbeat written after that end threw (write after end) with
 * no one to catch it: the process Airlock forwards in.
 */
const STREAMS = 8;
/** Eight of these are far more than the feed's buffer limit and loopback's socket buffers together. */
const REPLY_CHARS = 3 * 1024 * 1024;
/** How an HTTP/1.1 chunked answer ends: an end the window would have had to read the whole backlog to reach. */
const CHUNKED_END = '\r\n0\r\n\r\n';

let harness: ControlHarness;
let clientToken = '';

beforeAll(async () => {
  harness = await startControlHarness();
  clientToken = await setUpMainProfileAndAgent(harness);
});
afterAll(async () => {
  await harness.close();
});

/** The live feed on a raw socket, paused once its answer started: a window that reads nothing more. */
function stalledWindow(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(harness.proxy.url);
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET /_airlock/api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${CONTROL_TOKEN}\r\n\r\n`);
    });
    socket.once('data', () => {
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * A window that reads: resolves once it has seen `count` requests done, or was itself dropped (a
 * burst of frames is written at once, faster than any socket takes it): either way the stalled
 * window, sent the same frames in the same pass, has had its limit passed.
 */
async function seesDone(count: number, signal: AbortSignal): Promise<void> {
  const events = await harness.api('/events', { signal });
  const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let done = 0;
  while (done < count) {
    const { done: ended, value } = await reader.read().catch(() => ({ done: true, value: '' }));
    if (ended) return;
    buffered += value;
    const messages = buffered.split('\n\n');
    buffered = messages.pop() ?? '';
    for (const message of messages) {
      const data = message.split('\n').find((line) => line.startsWith('data: '));
      if (data === undefined) continue;
      done += (JSON.parse(data.slice(6)) as LiveFrame).requests.filter((update) => update.fields.state === 'done').length;
    }
  }
}

/** Reads on until the connection closes or the answer's chunked end arrives: which came first. */
function readsOn(socket: Socket): Promise<'closed' | 'ended'> {
  return new Promise((resolve) => {
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('latin1')).slice(-CHUNKED_END.length);
      if (tail === CHUNKED_END) resolve('ended');
    });
    socket.once('close', () => resolve('closed'));
    socket.on('error', () => undefined);
    socket.resume();
  });
}

describe('a window that stops reading its live feed while agents stream', () => {
  it('is dropped (its connection closed), not ended behind a backlog it must read first', async () => {
    const window = await stalledWindow();
    const abort = new AbortController();
    const reading = seesDone(STREAMS, abort.signal);
    for (let index = 0; index < STREAMS; index += 1) harness.simulator.script({ kind: 'reply', content: 'y'.repeat(REPLY_CHARS) });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` };
    const body = chatBody({ stream: true });
    await Promise.all(
      Array.from({ length: STREAMS }, () => rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body })),
    );
    await reading;
    abort.abort();
    expect(await readsOn(window)).toBe('closed');
  });
});
