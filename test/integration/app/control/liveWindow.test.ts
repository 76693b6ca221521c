import { createServer, get, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LIVE_TEXT_LIMIT_CHARS, type LiveFrame, type LiveRequestUpdate } from '../../../../proxy/contracts/liveEvents.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { LiveWindow, type LiveWindowOptions } from '../../../../proxy/app/control/liveWindow.ts';

/**
 * One window's feed on a real socket: a window that reads keeps up with any burst (what it has not
 * taken yet is merged, not queued), one that stops reading is dropped once what is held for it
 * passes the limit, so its memory stays bounded.
 */

const REQUESTS = 8;
/** How an HTTP/1.1 chunked answer ends: what a window dropped mid-feed never gets. */
const CHUNKED_END = '\r\n0\r\n\r\n';

interface Served {
  window: LiveWindow;
  res: ServerResponse;
}

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

/** A server with one live route; resolves its port and, per connection, the window on it. */
async function serveWindows(options: LiveWindowOptions = {}): Promise<{ port: number; nextWindow: () => Promise<Served> }> {
  const waiting: ((served: Served) => void)[] = [];
  server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.flushHeaders();
    const window = new LiveWindow(res, options);
    res.once('close', () => window.close());
    waiting.shift()?.({ window, res });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, nextWindow: () => new Promise((resolve) => waiting.push(resolve)) };
}

const status = (proxyUrl: string): StatusResponse => ({ proxyUrl, paused: false }) as StatusResponse;
const frameOf = (requests: LiveRequestUpdate[], frameStatus: StatusResponse | null = null): LiveFrame => ({
  requests,
  status: frameStatus,
});
const started = (requestId: string): LiveRequestUpdate => ({ requestId, fields: { startedAtMs: 1, state: 'in_flight' }, appendText: '' });
const ended = (requestId: string): LiveRequestUpdate => ({ requestId, fields: { state: 'done', status: 200 }, appendText: '' });

/** A window reading as the renderer does: every chunk as it arrives, each frame applied in order. */
function readingClient(port: number): {
  seen: (predicate: () => boolean) => Promise<void>;
  text: Map<string, string>;
  done: Set<string>;
  statuses: string[];
  closed: () => boolean;
} {
  const text = new Map<string, string>();
  const done = new Set<string>();
  const statuses: string[] = [];
  const checks: { predicate: () => boolean; resolve: () => void; reject: (error: Error) => void }[] = [];
  let closed = false;
  const check = (): void => {
    for (const waiting of [...checks]) {
      if (waiting.predicate()) waiting.resolve();
      else if (closed) waiting.reject(new Error('the window was dropped'));
      else continue;
      checks.splice(checks.indexOf(waiting), 1);
    }
  };
  get({ host: '127.0.0.1', port, path: '/' }, (response) => {
    response.setEncoding('utf8');
    let buffered = '';
    response.on('data', (chunk: string) => {
      buffered += chunk;
      const messages = buffered.split('\n\n');
      buffered = messages.pop() ?? '';
      for (const message of messages) {
        const data = message.split('\n').find((line) => line.startsWith('data: '));
        if (data === undefined) continue;
        const frame = JSON.parse(data.slice(6)) as LiveFrame;
        for (const update of frame.requests) {
          text.set(update.requestId, (text.get(update.requestId) ?? '') + update.appendText);
          if (update.fields.state === 'done') done.add(update.requestId);
        }
        if (frame.status) statuses.push(frame.status.proxyUrl);
      }
      check();
    });
    response.once('close', () => {
      closed = true;
      check();
    });
  });
  return {
    seen: (predicate) =>
      new Promise((resolve, reject) => {
        checks.push({ predicate, resolve, reject });
        check();
      }),
    text,
    done,
    statuses,
    closed: () => closed,
  };
}

/** A window that read its first bytes and then nothing more (frozen, or never scheduled). */
function stalledClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    socket.once('error', reject);
    socket.once('data', () => {
      socket.pause();
      resolve(socket);
    });
  });
}

/** The stalled window reads on: does its connection close, or does it reach the answer's chunked end? */
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

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a window reading its live feed', () => {
  it('gets a burst far past the hold limit at its own pace: every start, the latest text, every end', async () => {
    const { port, nextWindow } = await serveWindows({ maxHeldChars: 1024 * 1024 });
    const client = readingClient(port);
    const { window } = await nextWindow();
    const ids = Array.from({ length: REQUESTS }, (_, index) => `r${index}`);
    window.send(frameOf(ids.map(started)));
    // 64 frames of 8 streams' text, 32 MiB in one turn: 32 times the hold limit.
    const sent = new Map(ids.map((id) => [id, '']));
    for (let frame = 0; frame < 64; frame += 1) {
      const updates = ids.map((id) => ({ requestId: id, fields: {}, appendText: `<${id}:${frame}>`.padEnd(64 * 1024, '.') }));
      for (const update of updates) sent.set(update.requestId, sent.get(update.requestId) + update.appendText);
      window.send(frameOf(updates));
    }
    window.send(frameOf([], status('after the text')));
    await client.seen(() => client.statuses.includes('after the text'));
    for (const id of ids) expect(client.text.get(id)?.slice(-LIVE_TEXT_LIMIT_CHARS)).toBe(sent.get(id)?.slice(-LIVE_TEXT_LIMIT_CHARS));

    window.send(frameOf(ids.map(ended)));
    await client.seen(() => client.done.size === REQUESTS);
    expect(client.closed()).toBe(false);
  });
});

describe('a window that stops reading its live feed', () => {
  it('is dropped (its connection closed, not ended behind a backlog) once what is held for it passes the limit', async () => {
    const maxHeldChars = 1024 * 1024;
    const { port, nextWindow } = await serveWindows({ maxHeldChars });
    const [stalled, { window, res }] = await Promise.all([
      stalledClient(port),
      nextWindow().then(async (served) => {
        served.window.send(frameOf([], status('first')));
        return served;
      }),
    ]);
    // A new request per frame, each with a stream's full tail: nothing merges away. The socket's
    // buffers take some first; past them what is held grows by a frame a turn until the limit.
    // What waits on the socket in the proxy is never more than the frame that found it full: the
    // rest is merged and held, up to the limit, so a window that never reads costs a bounded amount.
    let frames = 0;
    let mostQueuedBytes = 0;
    let largestFrameBytes = 0;
    while (!res.destroyed && frames < 4_096) {
      const frame = frameOf([{ ...started(`r${frames}`), appendText: 'x'.repeat(LIVE_TEXT_LIMIT_CHARS) }]);
      largestFrameBytes = Math.max(largestFrameBytes, JSON.stringify(frame).length + 64);
      window.send(frame);
      mostQueuedBytes = Math.max(mostQueuedBytes, res.writableLength);
      frames += 1;
      await turn();
    }
    expect(res.destroyed).toBe(true);
    expect(frames * largestFrameBytes).toBeGreaterThan(2 * maxHeldChars);
    expect(mostQueuedBytes).toBeLessThanOrEqual(res.writableHighWaterMark + largestFrameBytes);
    expect(await readsOn(stalled)).toBe('closed');
  });
});
