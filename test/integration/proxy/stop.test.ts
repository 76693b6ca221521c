import { afterEach, describe, expect, it } from 'vitest';
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { openStream } from '../../support/openStream.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { TranslationThread } from '../../../proxy/forward/translation/translationThreadClient.ts';
import { PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../../../proxy/contracts/defaults.ts';
import { BroadcastChannel } from 'node:worker_threads';
import { connect } from 'node:net';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const LONG_REPLY = 'a long answer '.repeat(1_000);

type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.simulator.close();
  harness = null;
});

const endsOf = (events: readonly RequestLifecycleEvent[]): EndEvent[] => events.filter((event): event is EndEvent => event.type === 'end');

describe('stopping the proxy with streams still open', () => {
  it('sends each its protocol error event, and every request has ended when stop resolves', async () => {
    // Long streams: 400 chunks 50 ms apart outlast the test by far.
    harness = await startHarness({ simulator: { streamChunkCount: 400, streamChunkIntervalMs: 50 } });
    const { proxy } = harness;
    harness.simulator.script({ kind: 'reply', content: LONG_REPLY }, { kind: 'reply', content: LONG_REPLY });
    const openAi = openStream(`${proxy.url}/v1/chat/completions`, JSON_HEADERS, chatBody({ stream: true }));
    const anthropic = openStream(
      `${proxy.url}/v1/messages`,
      { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' },
      JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    );
    await Promise.all([openAi.started, anthropic.started]);

    await proxy.stop({ drainMs: 0 });
    const ends = endsOf(harness.events);
    expect(ends.map((end) => end.errorClass)).toEqual(['proxy_stopping', 'proxy_stopping']);

    const openAiOutcome = await openAi.outcome;
    expect(openAiOutcome.endedCleanly).toBe(true);
    expect(openAiOutcome.body).toMatch(/data: \{"error":\{"message":"Airlock was stopped[^"]*","type":"proxy_stopping"/);
    expect(openAiOutcome.body).not.toContain('[DONE]');
    const anthropicOutcome = await anthropic.outcome;
    expect(anthropicOutcome.endedCleanly).toBe(true);
    expect(anthropicOutcome.body).toMatch(
      /event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"Airlock was stopped/,
    );
  });

  it('waits for the row of a stream the gateway cut just before the stop', async () => {
    harness = await startHarness({ simulator: { streamChunkCount: 8 } });
    harness.simulator.script({ kind: 'cutAfter', chunks: 3 });
    const cut = openStream(`${harness.proxy.url}/v1/chat/completions`, JSON_HEADERS, chatBody({ stream: true }));
    // The client has its error event; the request's accounting (a tokenizer estimate) is still running.
    expect((await cut.outcome).body).toContain('stream_interrupted');

    await harness.proxy.stop({ drainMs: 0 });
    const [end] = endsOf(harness.events);
    expect(end).toMatchObject({ errorClass: 'stream_interrupted', usageSource: 'estimated' });
    expect(end?.usage?.outputTokens).toBeGreaterThan(0);
  });
});

/** A request sent with Expect: 100-continue: `reading` resolves when the proxy starts reading its body. */
function uploadInPieces(url: string): {
  reading: Promise<void>;
  request: ClientRequest;
  answer: Promise<{ status: number; body: string }>;
} {
  const request = httpRequest(url, { method: 'POST', headers: { ...JSON_HEADERS, 'content-length': '1000', expect: '100-continue' } });
  const reading = new Promise<void>((resolve) => request.once('continue', () => resolve()));
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.once('error', reject);
    });
    request.once('error', reject);
  });
  request.flushHeaders();
  return { reading, request, answer };
}

// Before 2026-11-29 the stop closed the listener at once: a client that came during the drain was
// refused at the TCP level, which the OpenAI and Anthropic SDKs report as "Connection error." with no cause.
describe('a new request while the stop lets running requests finish', () => {
  it('is refused with a 503 that says Airlock is stopping, in its SDK’s shape, and the running request still finishes', async () => {
    harness = await startHarness();
    const held = harness.simulator.holdNext('/chat/completions');
    const running = rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody() });
    await held.arrived;
    const stopped = harness.proxy.stop({ drainMs: 30_000 });

    const openAi = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const openAiError = await openAi.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(openAiError).toBeInstanceOf(OpenAI.APIError);
    expect(openAiError).toMatchObject({ status: 503, message: expect.stringContaining('Airlock is stopping') });
    const anthropic = new Anthropic({ baseURL: harness.proxy.url, apiKey: 'x', maxRetries: 0 });
    const anthropicError = await anthropic.messages
      .create({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(anthropicError).toBeInstanceOf(Anthropic.APIError);
    expect(anthropicError).toMatchObject({ status: 503, message: expect.stringContaining('Airlock is stopping') });
    // Final: a resend within the drain meets the same refusal.
    expect(harness.simulator.received).toHaveLength(1);

    held.release();
    expect((await running).status).toBe(200);
    expect(await stopped).toEqual({ endedRequests: 0, unfinishedRequests: 0, cutAnswers: 0 });
    expect(endsOf(harness.events).map((end) => [end.status, end.errorClass])).toEqual([
      [503, 'proxy_stopping'],
      [503, 'proxy_stopping'],
      [200, null],
    ]);
  });
});

describe('stopping the proxy with a request still before its exchange', () => {
  it('ends a request whose client is still sending its body at once, with its row', async () => {
    harness = await startHarness();
    const upload = uploadInPieces(`${harness.proxy.url}/v1/chat/completions`);
    await upload.reading;
    upload.request.write('{"model":"gpt-4o-mini",');

    const report = await harness.proxy.stop({ drainMs: 0 });
    expect(report).toEqual({ endedRequests: 1, unfinishedRequests: 0, cutAnswers: 0 });
    const [end] = endsOf(harness.events);
    expect(end).toMatchObject({ status: 503, errorClass: 'proxy_stopping' });
    const answer = await upload.answer;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { type: 'proxy_stopping' } });
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('ends a request waiting for its body to be translated at once, and nothing is sent', async () => {
    const translation = new TranslationThread({ threadUrl: new URL('./fixtures/gatedTranslationThread.ts', import.meta.url) });
    harness = await startHarness({ translation, profile: { protocolModes: { messages: 'translate', responses: 'translate' } } });
    const gate = new BroadcastChannel('airlock-test-translation-gate');
    const inTranslation = new Promise<void>((resolve) => {
      gate.onmessage = () => resolve();
    });
    const metadata: Record<string, number> = {};
    for (let index = 0; index < PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS; index += 1) metadata[`k${index}`] = index;
    const body = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], metadata });
    const answer = rawRequest(`${harness.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' },
      body,
    });
    await inTranslation;

    try {
      expect(await harness.proxy.stop({ drainMs: 0 })).toEqual({ endedRequests: 1, unfinishedRequests: 0, cutAnswers: 0 });
      expect(endsOf(harness.events)).toMatchObject([{ status: 503, errorClass: 'proxy_stopping' }]);
      const answered = await answer;
      expect(answered.status).toBe(503);
      expect(JSON.parse(answered.body)).toMatchObject({ type: 'error', error: { message: expect.stringMatching(/Airlock is stopping/) } });
      expect(harness.simulator.received).toHaveLength(0);
    } finally {
      gate.close();
      await translation.close();
    }
  });
});

/** How an HTTP/1.1 chunked answer ends: what a client whose connection was cut never gets. */
const CHUNKED_END = '\r\n0\r\n\r\n';
/**
 * One piece of text far larger than loopback's socket buffers take while the client reads nothing
 * (a few MiB here): most of it is still in the proxy when the stop comes.
 */
const REPLY = 'zz '.repeat(6 * 1024 * 1024);

interface PausedStream {
  /** Reads on from where it stopped: everything received, and whether the answer reached its chunked end. */
  readOn(): Promise<{ text: string; ended: boolean }>;
}

/**
 * A streaming request whose client stops reading once the answer started (busy, or suspended with
 * Ctrl-Z): it has taken the start of the answer's text and nothing more.
 */
function pausedStream(proxyUrl: string): Promise<PausedStream> {
  const { port } = new URL(proxyUrl);
  const body = chatBody({ stream: true });
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    socket.once('error', reject);
    // Chunks kept as they come and joined once: a test client as quick to read as a real one.
    const chunks: Buffer[] = [];
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-CHUNKED_END.length);
    });
    const received = (): { text: string; ended: boolean } => ({
      text: Buffer.concat(chunks).toString('latin1'),
      ended: tail === CHUNKED_END,
    });
    const pauseOnceTextArrives = (): void => {
      if (!Buffer.concat(chunks).includes('zz ')) return;
      socket.off('data', pauseOnceTextArrives);
      socket.pause();
      resolve({
        readOn: () =>
          new Promise((settle) => {
            socket.on('data', () => {
              if (tail === CHUNKED_END) settle(received());
            });
            socket.once('close', () => settle(received()));
            socket.on('error', () => undefined);
            socket.resume();
          }),
      });
    };
    socket.on('data', pauseOnceTextArrives);
  });
}

describe('stopping the proxy while a client is slow to read its stream', () => {
  it('waits for the client to take the rest of its answer: its stream ends with the error event, not a cut', async () => {
    harness = await startHarness({ simulator: { streamChunkCount: 1 } });
    harness.simulator.script({ kind: 'reply', content: REPLY });
    const stream = await pausedStream(harness.proxy.url);
    // The client reads again just as the stop ends its stream: the end frame is still in the proxy.
    const reading = harness.nextEnd().then(() => stream.readOn());

    const report = await harness.proxy.stop({ drainMs: 0 });
    const { text, ended } = await reading;
    expect(ended).toBe(true);
    expect(text).toContain('"type":"proxy_stopping"');
    expect(report).toEqual({ endedRequests: 1, unfinishedRequests: 0, cutAnswers: 0 });
  });

  it('cuts an answer its client has not taken once the wait is over, and says so', async () => {
    harness = await startHarness({ simulator: { streamChunkCount: 1 } });
    harness.simulator.script({ kind: 'reply', content: REPLY });
    const stream = await pausedStream(harness.proxy.url);

    const report = await harness.proxy.stop({ drainMs: 0 });
    expect((await stream.readOn()).ended).toBe(false);
    expect(report).toEqual({ endedRequests: 1, unfinishedRequests: 0, cutAnswers: 1 });
  });
});
