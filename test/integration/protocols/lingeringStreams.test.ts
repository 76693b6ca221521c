import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATIVE_TEXT } from '../../simulator/native.ts';
import {
  callThroughAirlock,
  MODEL,
  PRICE,
  rawRequestOf,
  STREAMED_TEXT,
  upstreamAnswer,
  upstreamStream,
  variantName,
  type Variant,
} from '../../support/faultMatrix.ts';
import { JSON_HEADERS } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * A gateway that has sent its whole stream (`[DONE]`, `message_stop`, `response.completed`) and
 * then keeps the body open: relays do this (earendil-works/pi#7954, an OpenAI-compatible gateway
 * lingering after the answer). The OpenAI and Anthropic SDKs read on after the end marker until the
 * body ends, so the client waited for Airlock's idle timeout (5 minutes by default) and then got a
 * timeout error after a whole answer, which Codex sends again. The client gets its end, the row is
 * a success, and the gateway's connection is closed rather than held.
 */

/** Long enough that only the answer's end, never the idle timeout, can end these streams within the test's time. */
const IDLE_TIMEOUT_MS = 120_000;

let chatGateway: Harness;
let nativeGateway: Harness;

beforeAll(async () => {
  const profile = (mode: 'native' | 'translate') => ({
    prices: [PRICE],
    protocolModes: { messages: mode, responses: mode },
    timeouts: { connectTimeoutMs: 5000, idleTimeoutMs: IDLE_TIMEOUT_MS, totalTimeoutMs: 600_000 },
  });
  chatGateway = await startHarness({ profile: profile('translate'), simulator: { models: [MODEL] } });
  nativeGateway = await startHarness({
    profile: profile('native'),
    simulator: { models: [MODEL], nativeProtocols: ['messages', 'responses'], holdNativeStreamsOpen: true },
  });
});
afterAll(async () => {
  await chatGateway.close();
  await nativeGateway.close();
});

const VARIANTS: Variant[] = [
  { client: 'chat', mode: 'native', stream: true },
  { client: 'messages', mode: 'translate', stream: true },
  { client: 'responses', mode: 'translate', stream: true },
  { client: 'messages', mode: 'native', stream: true },
  { client: 'responses', mode: 'native', stream: true },
];

describe('a gateway that keeps the stream open after its answer is whole', () => {
  it.each(VARIANTS.map((variant) => [variantName(variant), variant] as const))(
    '%s: the client gets its end, the row is a success',
    async (_name, variant) => {
      const native = variant.client !== 'chat' && variant.mode === 'native';
      const harness = native ? nativeGateway : chatGateway;
      harness.simulator.reset();
      // A chat gateway's whole stream, [DONE] included, then nothing; the native simulator holds its streams open itself.
      if (!native) harness.simulator.script({ kind: 'bodyChunks', chunks: upstreamStream(variant).events, holdOpen: true });
      const ended = harness.nextEnd();
      const outcome = await callThroughAirlock(harness, variant);
      expect(outcome).toMatchObject({ apiError: null, otherError: null });
      expect(outcome.text).toBe(native ? NATIVE_TEXT : STREAMED_TEXT);
      const end = await ended;
      expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
      expect(findSentinel(outcome.seen)).toBeNull();
      // The lingering upstream connection is closed, not held until the idle timeout.
      await harness.simulator.waitForClose(0, 10_000);
    },
  );
});

/**
 * A connection reset once the whole stream is through, as a load balancer may send on closing
 * (AWS's reset on idle, see the simulator's resetAfterBytes): the row called a whole answer
 * interrupted, and a chat client got an error frame after `[DONE]`, which the OpenAI SDKs skip
 * but the AI SDK (opencode), reading on past `[DONE]`, throws on.
 */
describe('a connection that breaks after the answer is whole', () => {
  it.each(
    VARIANTS.filter((variant) => variant.mode === 'translate' || variant.client === 'chat').map(
      (variant) => [variantName(variant), variant] as const,
    ),
  )('%s: the row is a success and the client gets no error', async (_name, variant) => {
    chatGateway.simulator.reset();
    const whole = upstreamStream(variant).events.join('');
    chatGateway.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'text/event-stream',
      text: `${whole}: closing\n\n`,
      resetAfterBytes: whole.length + 3,
    });
    const ended = chatGateway.nextEnd();
    const outcome = await callThroughAirlock(chatGateway, variant);
    expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
    expect(outcome.seen).not.toContain('stream_interrupted');
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });
});

/** Both quirks at once: a gateway that streams a request for a whole answer (otherFormAnswers.test.ts) and lingers after it. */
describe('a request for a whole answer that the gateway streams and keeps open', () => {
  const whole = VARIANTS.filter((variant) => variant.mode === 'translate' || variant.client === 'chat').map((variant) => ({
    ...variant,
    stream: false,
  }));
  it.each(whole.map((variant) => [variantName(variant), variant] as const))(
    '%s: the client gets the whole answer, the row is a success',
    async (_name, variant) => {
      chatGateway.simulator.reset();
      chatGateway.simulator.script({ kind: 'bodyChunks', chunks: upstreamStream({ ...variant, stream: true }).events, holdOpen: true });
      const ended = chatGateway.nextEnd();
      const outcome = await callThroughAirlock(chatGateway, variant);
      expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
      expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
      await chatGateway.simulator.waitForClose(0, 10_000);
    },
  );
});

/**
 * A streamed request answered with one whole JSON answer under the event-stream label (decolua/9router#3492
 * frames one so) by a gateway that then keeps the body open, as the lingering relays above do: Airlock held
 * the JSON to the body's end, so the client waited for the idle timeout and got an error after all.
 */
describe('one JSON answer under the event-stream label, the stream kept open after it', () => {
  it.each(
    VARIANTS.filter((variant) => variant.mode === 'translate' || variant.client === 'chat')
      .flatMap((variant) => [variant, { ...variant, stream: false }])
      .map((variant) => [variantName(variant), variant] as const),
  )('%s: the client gets the whole answer and its end, the row is a success', async (_name, variant) => {
    chatGateway.simulator.reset();
    chatGateway.simulator.script({ kind: 'bodyChunks', chunks: [upstreamAnswer(variant)], holdOpen: true });
    const ended = chatGateway.nextEnd();
    const outcome = await callThroughAirlock(chatGateway, variant);
    expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
    await chatGateway.simulator.waitForClose(0, 10_000);
  });
});

/** Sends `body` to `url` and closes the connection as soon as the answer's headers are in. */
function closeAtHeaders(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: JSON_HEADERS }, () => {
      req.destroy();
      resolve();
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The same JSON answer, its client gone during the grace: the client gets nothing of it until the
 * body ends (it is sent whole then), so one that leaves in between got nothing, yet the row said
 * success. Airlock's headers go out after the gateway's came with the JSON right behind them: by the
 * time the client has them, the JSON is whole and its grace runs (the usage it reports, billed, shows
 * it was read; without it the row would be estimated).
 */
describe('one JSON answer under the event-stream label, its client gone before the gateway ends it', () => {
  it.each(
    VARIANTS.filter((variant) => variant.mode === 'translate' || variant.client === 'chat').map(
      (variant) => [variantName(variant), variant] as const,
    ),
  )('%s: the row is client_aborted, its usage billed as reported', async (_name, variant) => {
    chatGateway.simulator.reset();
    chatGateway.simulator.script({ kind: 'bodyChunks', chunks: [upstreamAnswer(variant)], holdOpen: true });
    const ended = chatGateway.nextEnd();
    const { path, body } = rawRequestOf(variant);
    await closeAtHeaders(`${chatGateway.proxy.url}${path}`, body);
    expect(await ended).toMatchObject({ status: 200, errorClass: 'client_aborted', usageSource: 'reported' });
    await chatGateway.simulator.waitForClose(0, 10_000);
  });
});
