import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  runFault,
  startMatrix,
  STREAMED_TEXT,
  upstreamAnswer,
  upstreamStream,
  MODEL,
  VARIANTS,
  variantName,
  type MatrixHarnesses,
  type Variant,
} from '../../support/faultMatrix.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * A chat gateway that answers in the other form than the request asked for, seen through each
 * client's own SDK (Claude Code and Codex on a translated exchange, an OpenAI SDK script on chat).
 */
let matrix: MatrixHarnesses;
beforeAll(async () => {
  matrix = await startMatrix();
});
afterAll(async () => {
  await matrix.close();
});

const CHAT_GATEWAY_VARIANTS = (stream: boolean): Variant[] => [
  { client: 'chat', mode: 'native', stream },
  { client: 'messages', mode: 'translate', stream },
  { client: 'responses', mode: 'translate', stream },
];

const NATIVE_VARIANTS: Variant[] = [
  { client: 'messages', mode: 'native', stream: false },
  { client: 'responses', mode: 'native', stream: false },
];

/** The variant's whole answer as a relay sends it when it was not asked for usage: without any. */
function answerWithoutUsage(variant: Variant): string {
  const { usage: _usage, ...answer } = JSON.parse(upstreamAnswer(variant)) as Record<string, unknown>;
  return JSON.stringify(answer);
}

/**
 * Servers that stream whatever the request asked: kaito-project/kaito#1880 and
 * unslothai/unsloth#6570 (`stream: false` ignored), diegosouzapw/OmniRoute#10239 (a request without
 * `stream` streamed). A client that asked for one JSON answer reads it with JSON.parse: the SDKs
 * failed on the event stream ("Cannot read properties of undefined"), and the row said success.
 */
describe('a request for a whole answer that the gateway answers with an event stream', () => {
  it.each(CHAT_GATEWAY_VARIANTS(false).map((variant) => [variantName(variant), variant] as const))(
    '%s: the client gets the whole answer it asked for',
    async (_name, variant) => {
      const { events } = upstreamStream({ ...variant, stream: true });
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: events.join(''),
      });
      expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
      expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported', usage: { inputTokens: 7, outputTokens: 5 } });
      expect(findSentinel(outcome.seen)).toBeNull();
    },
  );

  // A native gateway too: the ChatGPT backend Codex uses answers every Responses request as a stream
  // (farion1231/cc-switch#2216: a proxy's request with stream false got `event: response.created`).
  it.each(NATIVE_VARIANTS.map((variant) => [variantName(variant), variant] as const))(
    '%s: the client gets the whole answer it asked for',
    async (_name, variant) => {
      const { events } = upstreamStream({ ...variant, stream: true });
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: events.join(''),
      });
      expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
      expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
    },
  );

  // Native and through a chat gateway alike: cut before its end (a chat stream, before its finish), it is no whole answer.
  it.each([...NATIVE_VARIANTS, ...CHAT_GATEWAY_VARIANTS(false)].map((variant) => [variantName(variant), variant] as const))(
    '%s: a stream cut before its end is the broken answer it is, not a whole one',
    async (_name, variant) => {
      const { events, textEvents } = upstreamStream({ ...variant, stream: true });
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: events.slice(0, textEvents).join(''),
      });
      expect(outcome.otherError).toBeNull();
      expect(outcome.apiError).not.toBeNull();
      expect(end.errorClass).toBe('stream_interrupted');
    },
  );

  // A gateway that streams anyway often sends no usage chunk (it was not asked for one): the output is then estimated from the text.
  it.each(CHAT_GATEWAY_VARIANTS(false).map((variant) => [variantName(variant), variant] as const))(
    '%s: a stream without usage is billed for the text it wrote, whole or cut',
    async (_name, variant) => {
      const { events, textEvents } = upstreamStream({ ...variant, stream: true });
      const withoutUsage = events.filter((event) => !event.includes('"usage"'));
      for (const text of [withoutUsage.join(''), withoutUsage.slice(0, textEvents).join('')]) {
        const { end } = await runFault(matrix, variant, { kind: 'text', status: 200, contentType: 'text/event-stream', text });
        expect(end.usageSource).toBe('estimated');
        expect(end.usage?.outputTokens).toBeGreaterThan(0);
      }
    },
  );

  // Read as it comes (for its text, usage and end) and put together into the answer from those same events: each parsed once.
  it('chat, whole: each event of the stream is parsed once', async () => {
    const variant: Variant = { client: 'chat', mode: 'native', stream: false };
    const { events } = upstreamStream({ ...variant, stream: true });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const { outcome } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: events.join(''),
      });
      expect(outcome.text).toBe(STREAMED_TEXT);
      const eventParses = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.includes('"chat.completion.chunk"'));
      expect(eventParses).toHaveLength(events.filter((event) => event.includes('"chat.completion.chunk"')).length);
    } finally {
      parse.mockRestore();
    }
  });

  // decolua/9router#3492: the whole answer's JSON under an event-stream label, with `data: [DONE]` after it.
  it.each(CHAT_GATEWAY_VARIANTS(false).map((variant) => [variantName(variant), variant] as const))(
    '%s: one JSON answer under the event-stream label, [DONE] after it, is that answer',
    async (_name, variant) => {
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: `${upstreamAnswer(variant)}\n\ndata: [DONE]\n\n`,
      });
      expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
      expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported', usage: { inputTokens: 7, outputTokens: 5 } });
    },
  );

  it.each(CHAT_GATEWAY_VARIANTS(false).map((variant) => [variantName(variant), variant] as const))(
    '%s: a stream with no answer in it is no empty success',
    async (_name, variant) => {
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: 'data: [DONE]\n\n',
      });
      expect(outcome.otherError).toBeNull();
      expect(outcome.apiError).not.toBeNull();
      expect(end.errorClass).toBe('stream_interrupted');
    },
  );
});

/**
 * Servers that answer a streamed request whole (BaseIntelligence/bounty-challenge#17821: a handler
 * that always returns JSON). The OpenAI SDKs parse the JSON body as events, find none, and end the
 * stream empty without an error: the script's user got an empty answer. A Responses client on a
 * translated exchange is covered by streamAnsweredWhole.test.ts.
 */
describe('a streamed request that the gateway answers whole', () => {
  const variants: Variant[] = [
    { client: 'chat', mode: 'native', stream: true },
    { client: 'messages', mode: 'translate', stream: true },
    { client: 'messages', mode: 'native', stream: true },
    { client: 'responses', mode: 'native', stream: true },
  ];
  it.each(variants.map((variant) => [variantName(variant), variant] as const))(
    '%s: the client gets the answer as the events it asked for',
    async (_name, variant) => {
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'application/json',
        text: upstreamAnswer(variant),
      });
      expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
      expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
    },
  );

  // The same whole answer under the event-stream label (decolua/9router#3492 frames one so, `data: [DONE]` after it):
  // read as events it held none, and the client got an empty stream (chat: one that ended with [DONE], a success) or an error.
  it.each(
    [...variants, { client: 'responses', mode: 'translate', stream: true } as const].flatMap((variant) => [
      [`${variantName(variant)}, [DONE] after it`, variant, '\n\ndata: [DONE]\n\n'] as const,
      [variantName(variant), variant, ''] as const,
    ]),
  )('%s: under the event-stream label, the client gets the answer as the events it asked for', async (_name, variant, after) => {
    const { outcome, end } = await runFault(matrix, variant, {
      kind: 'text',
      status: 200,
      contentType: 'text/event-stream',
      text: `${upstreamAnswer(variant)}${after}`,
    });
    expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
    expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });

  /**
   * A 200 whose whole body is only an error (declaredError.ts cites the relays that send one). Passed
   * on as it came, the SDKs read no events from it and end the stream empty, without an error: an
   * overloaded_error Claude Code would retry became an empty turn, and a failed response a finished one.
   */
  const failures: [Variant, string][] = [
    [
      { client: 'chat', mode: 'native', stream: true },
      JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error', code: 503 } }),
    ],
    [
      { client: 'messages', mode: 'native', stream: true },
      JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ],
    [
      { client: 'responses', mode: 'native', stream: true },
      JSON.stringify({
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        model: MODEL,
        status: 'failed',
        output: [],
        error: { code: 'server_error', message: 'The model failed' },
        usage: null,
      }),
    ],
  ];
  // Under the event-stream label its headers are out before the body shows it is an error: the stream ends with the error event.
  it.each(failures.map(([variant, text]) => [variantName(variant), variant, text] as const))(
    '%s: an error in the whole answer under the event-stream label ends the stream with an error event',
    async (_name, variant, text) => {
      const { outcome, end } = await runFault(matrix, variant, { kind: 'text', status: 200, contentType: 'text/event-stream', text });
      expect(outcome.otherError).toBeNull();
      expect(outcome.apiError).not.toBeNull();
      expect(outcome.text).toBe('');
      expect(end.errorClass).not.toBeNull();
    },
  );

  it.each(failures.map(([variant, text]) => [variantName(variant), variant, text] as const))(
    '%s: an error in the whole answer reaches the client as an error',
    async (_name, variant, text) => {
      const { outcome, end } = await runFault(matrix, variant, { kind: 'text', status: 200, contentType: 'application/json', text });
      expect(outcome.otherError).toBeNull();
      // An overload or a server error, which the SDKs and Claude Code or Codex retry.
      expect(outcome.apiError?.status).toBeGreaterThanOrEqual(500);
      expect(end.errorClass).not.toBeNull();
    },
  );
});

/**
 * One JSON answer under the event-stream label, `data: [DONE]` after it (decolua/9router#3492), from a relay that
 * was not asked for usage and sent none: the output is estimated from the answer's text, as it is for that answer
 * under its own JSON label, whether the client asked for a stream or not. Read as events, it held no text and was
 * billed for its input alone.
 */
describe('an answer without usage under the event-stream label', () => {
  it.each(VARIANTS.map((variant) => [variantName(variant), variant] as const))(
    '%s: it is billed for the text it wrote',
    async (_name, variant) => {
      const answer = answerWithoutUsage(variant);
      const labelledJson = await runFault(matrix, variant, { kind: 'text', status: 200, contentType: 'application/json', text: answer });
      const { end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: `${answer}\n\ndata: [DONE]\n\n`,
      });
      expect(labelledJson.end.usage?.outputTokens).toBeGreaterThan(0);
      expect(end).toMatchObject({
        usageSource: 'estimated',
        usage: labelledJson.end.usage,
        costCredits: labelledJson.end.costCredits,
      });
    },
  );
});

/**
 * An event stream under a JSON label: microsoft/foundry-dev-tools#195 (a proxy in front of OpenAI
 * answered `stream: true` with `Content-Type: application/json`), and a relay that streams whatever was
 * asked under the label of what was asked. Read as a JSON answer it was the wrong address answering (a
 * 400 no client retries, "check the base URL") and nothing was billed, though the model had answered.
 */
describe('an event stream under a JSON label', () => {
  it.each(VARIANTS.map((variant) => [variantName(variant), variant] as const))(
    '%s: the client gets the answer it asked for, billed as streamed',
    async (_name, variant) => {
      const { events } = upstreamStream({ ...variant, stream: true });
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'application/json',
        text: events.join(''),
      });
      expect(outcome).toMatchObject({ apiError: null, otherError: null, text: STREAMED_TEXT });
      expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
      expect(end.costCredits).toBeGreaterThan(0);
    },
  );

  it.each(VARIANTS.map((variant) => [variantName(variant), variant] as const))(
    '%s: cut before its end, it is the broken answer it is, and billed for the text it wrote',
    async (_name, variant) => {
      const { events, textEvents } = upstreamStream({ ...variant, stream: true });
      const { outcome, end } = await runFault(matrix, variant, {
        kind: 'text',
        status: 200,
        contentType: 'application/json',
        text: events.slice(0, textEvents).join(''),
      });
      expect(outcome.otherError).toBeNull();
      expect(outcome.apiError).not.toBeNull();
      expect(end.errorClass).toBe('stream_interrupted');
      expect(end.usage?.outputTokens).toBeGreaterThan(0);
    },
  );
});
