import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { END_GRACE_MS } from '../../../proxy/forward/streamRelay.ts';
import { UpstreamBody } from '../../../proxy/forward/upstreamBody.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A gateway that sends its whole answer, then more bytes than the sockets between it and the client
 * hold (keep-alive comments, then `[DONE]`), and keeps its body open (earendil-works/pi#7954): the
 * grace it gets to end its body must not cut what a slow client has not taken in yet. Far more than
 * the kernel's socket buffers hold, so the client's socket is full when the grace runs out.
 */
const TRAILING_BYTES = 32 * 1024 * 1024;
const COMMENT = `: ${'keep-alive '.repeat(5950)}\n\n`;

const chunk = (delta: object, finishReason: string | null): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
const ANSWER = chunk({ role: 'assistant', content: 'The whole answer.' }, null) + chunk({}, 'stop');
/** Airlock asks for it on the client's behalf (the client did not): the client never gets it. */
const USAGE = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })}\n\n`;
const DONE = 'data: [DONE]\n\n';
const COMMENTS = Math.ceil(TRAILING_BYTES / COMMENT.length);

let upstream: Server;
let harness: Harness;
/** What the gateway sends: the answer and then more than the sockets hold, or the answer's end in one large final read. */
let answers: 'trailing' | 'largeFinal' = 'trailing';
/** The gateway wrote all it had (the answer, its trailing bytes and [DONE]); its body stays open. */
const sent = { all: false };
/** Resolves when the gateway's connection of the current answer closes. */
let upstreamClosed: Promise<void> = Promise.resolve();

/** A translated client's answer in one read, its text larger than a client socket takes at once (16 KB). */
const LARGE_TEXT = 'x'.repeat(256 * 1024);

beforeAll(async () => {
  upstream = createServer((req, res) => {
    upstreamClosed = new Promise((resolve) => req.socket.once('close', () => resolve()));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    sent.all = false;
    if (answers === 'largeFinal') {
      res.write(chunk({ role: 'assistant', content: LARGE_TEXT }, 'stop') + USAGE);
      return;
    }
    res.write(ANSWER + USAGE);
    let written = 0;
    const pump = (): void => {
      while (written < COMMENTS) {
        written += 1;
        if (!res.write(COMMENT)) return void res.once('drain', pump);
      }
      res.write(DONE);
      sent.all = true;
    };
    pump();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  harness = await startHarness({ profile: { baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` } });
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await harness.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

/**
 * The grace a relayed stream gives its gateway: a promise of its first running out (its timer's
 * callback ran), and how many graces were started from inside that callback. With `holdLaterUntil`,
 * a grace started after the first ran out runs out only once it holds: on two busy cores the
 * gateway here, in this process, took longer than a grace to write what was left after the client
 * drained, and the relay longer than one to read what the gateway had written into the sockets
 * (a busy loop per core cut [DONE] off), and the test is of the relay, not of the machine's speed.
 */
function watchGrace(holdLaterUntil?: () => boolean): { ranOut: Promise<void>; startedAsItRanOut: () => number } {
  const setTimer = globalThis.setTimeout;
  let runningOut = false;
  let ranOutOnce = false;
  let startedAsItRanOut = 0;
  const ranOut = new Promise<void>((resolve) => {
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      if (ms !== END_GRACE_MS || new Error().stack?.includes('streamRelay.ts') !== true) return setTimer(callback, ms, ...args);
      if (runningOut) startedAsItRanOut += 1;
      const holdOn = holdLaterUntil !== undefined && ranOutOnce;
      const runOut = (): void => {
        if (holdOn && !holdLaterUntil()) {
          setTimer(runOut, ms);
          return;
        }
        runningOut = true;
        ranOutOnce = true;
        callback(...args);
        runningOut = false;
        resolve();
      };
      return setTimer(runOut, ms);
    }) as typeof setTimeout);
  });
  return { ranOut, startedAsItRanOut: () => startedAsItRanOut };
}

function open(path: string, body: object): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${harness.proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, resolve);
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Reads the answer whole; `taken.done` turns true once what came ends with [DONE]. */
async function readAll(res: IncomingMessage, taken = { done: false }): Promise<string> {
  const chunks: Buffer[] = [];
  let tail = '';
  for await (const piece of res as AsyncIterable<Buffer>) {
    chunks.push(piece);
    tail = (tail + piece.toString('latin1')).slice(-DONE.length);
    taken.done = tail === DONE;
  }
  return Buffer.concat(chunks).toString('utf8');
}

it('a client still taking in what it was sent when the grace runs out gets every byte the gateway sent', async () => {
  answers = 'trailing';
  // Later graces run out once the client has all the gateway sent (its relay read and wrote it), as on an idle machine.
  const taken = { done: false };
  const grace = watchGrace(() => sent.all && taken.done);
  const ended = harness.nextEnd();
  // The client reads nothing until the grace has run out: its socket fills, and the gateway's wait behind it.
  const res = await open('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  expect(res.statusCode).toBe(200);
  await grace.ranOut;
  expect(sent.all).toBe(false);
  // Its drain is what the relay waits for, not another grace after another while the socket stays full.
  expect(grace.startedAsItRanOut()).toBe(0);
  const received = await readAll(res, taken);
  expect(sent.all).toBe(true);
  expect(received).toBe(ANSWER + COMMENT.repeat(COMMENTS) + DONE);
  expect(await ended).toMatchObject({ status: 200, errorClass: null });
});

// A translated client gets its end with the answer's: when that last write filled its socket, the gateway still has its grace.
it('a translated client whose last write filled its socket leaves the gateway its grace', async () => {
  answers = 'largeFinal';
  const grace = watchGrace();
  const aborts = vi.spyOn(UpstreamBody.prototype, 'abort');
  const ended = harness.nextEnd();
  const res = await open('/v1/messages', {
    model: 'gpt-4o-mini',
    max_tokens: 64,
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const received = await readAll(res);
  expect(received).toContain('event: message_stop');
  expect(received).toContain(LARGE_TEXT);
  // The gateway's connection is closed by the grace's end, not as soon as the client has its answer.
  const first = await Promise.race([grace.ranOut.then(() => 'grace ran out'), upstreamClosed.then(() => 'gateway closed')]);
  expect(first).toBe('grace ran out');
  await upstreamClosed;
  // Every request's body ends with the same reasons (the grace's, the exchange's own): nothing added to one reaches another request.
  expect(aborts.mock.calls.length).toBeGreaterThan(0);
  for (const [reason] of aborts.mock.calls) expect(Object.isFrozen(reason)).toBe(true);
  expect(await ended).toMatchObject({ status: 200, errorClass: null });
});
