import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { END_GRACE_MS } from '../../../proxy/forward/streamRelay.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A request for a whole chat answer that the gateway streams anyway (otherFormAnswers.test.ts), its
 * usage chunk sent a while after the last finish_reason, as OpenAI's is after the choices' finish
 * (the usage chunk comes last, before `[DONE]`: platform.openai.com/docs/api-reference/chat-streaming).
 * The request asked for no usage, yet the gateway's stream is not over until that chunk or `[DONE]`:
 * the grace for a lingering body must not cut it off, or the answer is billed as an estimate.
 */
const ANSWER_TEXT = 'The whole answer.';
const chunk = (fields: object): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', ...fields })}\n\n`;

let upstream: Server;
let harness: Harness;
let releaseUsage: () => void = () => undefined;

beforeAll(async () => {
  upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // The text and its finish in one event: the proxy has read the finish when it reports the text.
    res.write(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: ANSWER_TEXT }, finish_reason: 'stop' }] }));
    releaseUsage = () => {
      res.end(`${chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })}data: [DONE]\n\n`);
    };
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  harness = await startHarness({ profile: { baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` } });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await harness.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

/** The grace of a stream read whole: whether it was started, and a promise of its running out. */
function watchGrace(): { started: () => boolean; ranOut: Promise<void> } {
  const setTimer = globalThis.setTimeout;
  let started = false;
  const ranOut = new Promise<void>((resolve) => {
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      if (ms !== END_GRACE_MS || new Error().stack?.includes('wholeFromStream.ts') !== true) return setTimer(callback, ms, ...args);
      started = true;
      return setTimer(() => {
        callback(...args);
        resolve();
      }, ms);
    }) as typeof setTimeout);
  });
  return { started: () => started, ranOut };
}

it('a usage chunk that comes after the grace would have run out is still the answer’s usage', async () => {
  const grace = watchGrace();
  const textReported = new Promise<void>((resolve) => {
    harness.subscribe((event) => {
      if (event.type === 'delta' && event.text === ANSWER_TEXT) resolve();
    });
  });
  const ended = harness.nextEnd();
  const answered = rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody() });
  // The finish was read with the text; a grace started at it would cut the body before the usage comes.
  await textReported;
  if (grace.started()) await grace.ranOut;
  releaseUsage();
  const response = await answered;
  expect(JSON.parse(response.body)).toMatchObject({ choices: [{ message: { content: ANSWER_TEXT } }] });
  expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported', usage: { inputTokens: 3, outputTokens: 4 } });
});
