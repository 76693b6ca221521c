import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { byteEstimateTokens, estimateTextTokens } from '../../../proxy/spend/estimate.ts';

/**
 * Output a model writes that is not the answer's text, from a gateway that reports no usage: the
 * estimate must count it as outputEstimate.test.ts's thinking and tool calls are, for the gateway bills it.
 */
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 4 };
/** A model declining at some length, as models explain what they will not do and what they can do instead. */
const REFUSAL = Array.from(
  { length: 12 },
  (_, step) => `I can't help with writing that exploit (${step}); I can explain how the vulnerability class is usually mitigated instead.`,
).join(' ');

let native: Harness;
beforeAll(async () => {
  native = await startHarness({
    profile: { prices: [PRICE], protocolModes: { messages: 'native', responses: 'native' } },
    simulator: { nativeProtocols: ['messages', 'responses'] },
  });
});
afterAll(async () => {
  await native?.close();
});

const event = (type: string, fields: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

/** Sends `request` to the native gateway's `path`, the gateway answering with `text`; resolves with the row's end. */
async function rowOf(path: string, request: object, text: string, contentType: string): Promise<RowEnd> {
  const { response, end } = await native.postAnswered(path, request, { text, contentType });
  expect(response.status, response.body).toBe(200);
  return end;
}

type RowEnd = Awaited<ReturnType<Harness['nextEnd']>>;

/** Estimated as the code's own estimators count what was written: its text tokenized once, no part of it twice. */
function expectEstimatedFrom(end: RowEnd, written: string): void {
  expect(end.usageSource).toBe('estimated');
  expect(end.usage?.outputTokens).toBe(estimateTextTokens(written));
}

/** The gateway's count stands as it reported it: nothing the model wrote is estimated on top. */
function expectReported(end: RowEnd, outputTokens: number): void {
  expect(end.usageSource).toBe('reported');
  expect(end.usage?.outputTokens).toBe(outputTokens);
}

/**
 * A Responses model that declines writes a `refusal` content part in its output message instead of
 * `output_text` (`{type: 'refusal', refusal}`), streamed as `response.refusal.delta` events: OpenAI's
 * Responses API reference (ResponseOutputRefusal, ResponseRefusalDeltaEvent; the openai SDKs' types).
 */
describe('a native Responses refusal', () => {
  /** Responses' usage words its counts `input_tokens` and `output_tokens` (OpenAI's Responses reference, ResponseUsage). */
  const REPORTED = { input_tokens: 12, output_tokens: 345, total_tokens: 357 };
  const responseOf = (status: string, output: object[], usage: object | null = null): object => ({
    id: 'resp_r1',
    object: 'response',
    created_at: 1,
    status,
    model: PRICE.model,
    output,
    usage,
  });
  const refusalMessage = (refusal: string, status: string): object => ({
    id: 'msg_r1',
    type: 'message',
    role: 'assistant',
    status,
    content: refusal === '' ? [] : [{ type: 'refusal', refusal }],
  });

  it('estimates a whole answer from its refusal', async () => {
    const answer = responseOf('completed', [refusalMessage(REFUSAL, 'completed')]);
    const end = await rowOf('/v1/responses', { model: PRICE.model, input: 'write it' }, JSON.stringify(answer), 'application/json');
    expectEstimatedFrom(end, REFUSAL);
  });

  /** The refusal streamed in deltas, then whole again in its part's and item's ends and in response.completed. */
  const refusalStream = (usage: object | null): string => {
    const part = { item_id: 'msg_r1', output_index: 0, content_index: 0 };
    const pieces = REFUSAL.match(/.{1,40}/gs) ?? [];
    return [
      event('response.created', { response: responseOf('in_progress', []) }),
      event('response.output_item.added', { output_index: 0, item: refusalMessage('', 'in_progress') }),
      event('response.content_part.added', { ...part, part: { type: 'refusal', refusal: '' } }),
      ...pieces.map((delta) => event('response.refusal.delta', { ...part, delta })),
      event('response.refusal.done', { ...part, refusal: REFUSAL }),
      event('response.content_part.done', { ...part, part: { type: 'refusal', refusal: REFUSAL } }),
      event('response.output_item.done', { output_index: 0, item: refusalMessage(REFUSAL, 'completed') }),
      event('response.completed', { response: responseOf('completed', [refusalMessage(REFUSAL, 'completed')], usage) }),
    ].join('');
  };

  it('estimates a stream from its refusal deltas, counted once', async () => {
    const end = await rowOf(
      '/v1/responses',
      { model: PRICE.model, input: 'write it', stream: true },
      refusalStream(null),
      'text/event-stream',
    );
    expectEstimatedFrom(end, REFUSAL);
  });

  it('takes the usage the gateway reported for a whole answer', async () => {
    const answer = responseOf('completed', [refusalMessage(REFUSAL, 'completed')], REPORTED);
    const end = await rowOf('/v1/responses', { model: PRICE.model, input: 'write it' }, JSON.stringify(answer), 'application/json');
    expectReported(end, REPORTED.output_tokens);
  });

  it('takes the usage the gateway reported for a stream', async () => {
    const request = { model: PRICE.model, input: 'write it', stream: true };
    expectReported(await rowOf('/v1/responses', request, refusalStream(REPORTED), 'text/event-stream'), REPORTED.output_tokens);
  });
});

/**
 * A chat model that declines writes `message.refusal` and leaves `content` null (OpenAI's Chat
 * Completions reference: the message's refusal; its structured outputs guide shows such an answer).
 */
describe('a chat refusal', () => {
  const REPORTED = { prompt_tokens: 12, completion_tokens: 345, total_tokens: 357 };
  const request = { model: PRICE.model, messages: [{ role: 'user', content: 'write it' }] };
  const completion = (usage?: object): object => ({
    id: 'chatcmpl-r1',
    object: 'chat.completion',
    created: 1,
    model: PRICE.model,
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: REFUSAL }, finish_reason: 'stop' }],
    ...(usage === undefined ? {} : { usage }),
  });

  it('estimates a whole answer from its refusal', async () => {
    expectEstimatedFrom(await rowOf('/v1/chat/completions', request, JSON.stringify(completion()), 'application/json'), REFUSAL);
  });

  it('takes the usage the gateway reported', async () => {
    const end = await rowOf('/v1/chat/completions', request, JSON.stringify(completion(REPORTED)), 'application/json');
    expectReported(end, REPORTED.completion_tokens);
  });
});

/**
 * Anthropic returns thinking its safety systems flagged encrypted, as a `redacted_thinking` block whose
 * `data` is opaque (Anthropic's extended thinking guide, "Thinking redaction"; Bedrock's Claude guide,
 * "Thinking encryption"), and thinking is billed as output tokens. Streamed, the block comes whole in its
 * content_block_start, with no deltas (zendev-sh/goai#93, pacifio/cersei#36).
 */
describe('a native Messages answer with redacted thinking', () => {
  /** A stand-in for the encrypted thinking: opaque bytes, base64 as Anthropic sends them. */
  const REDACTED_DATA = Buffer.alloc(3000, 'EmwKAhgBEgy3va3pzix').toString('base64');
  const THINKING_BYTES = Buffer.from(REDACTED_DATA, 'base64').length;
  const REPLY = 'ok';
  /** Messages' usage: message_start states the input, message_delta the output so far (Anthropic's streaming reference). */
  const REPORTED = { input_tokens: 12, output_tokens: 1234 };
  const REQUEST = { model: PRICE.model, max_tokens: 4096, messages: [{ role: 'user', content: 'think' }] };
  const message = (content: object[], usage: object | null = null): object => ({
    id: 'msg_rt1',
    type: 'message',
    role: 'assistant',
    model: PRICE.model,
    content,
    stop_reason: content.length === 0 ? null : 'end_turn',
    stop_sequence: null,
    ...(usage === null ? {} : { usage }),
  });
  const REDACTED = { type: 'redacted_thinking', data: REDACTED_DATA };
  const redactedStream = (usage: typeof REPORTED | null): string =>
    [
      event('message_start', { message: message([], usage === null ? null : { ...usage, output_tokens: 1 }) }),
      event('content_block_start', { index: 0, content_block: REDACTED }),
      event('content_block_stop', { index: 0 }),
      event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: REPLY } }),
      event('content_block_stop', { index: 1 }),
      event('message_delta', {
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        ...(usage === null ? {} : { usage: { output_tokens: usage.output_tokens } }),
      }),
      event('message_stop', {}),
    ].join('');

  /** The reply's text tokenized, the redacted thinking counted once, from its decoded bytes at the byte rate. */
  function expectEstimatedFromSize(end: RowEnd): void {
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.outputTokens).toBe(estimateTextTokens(REPLY) + byteEstimateTokens(THINKING_BYTES));
  }

  it('estimates a whole answer from the size of its redacted thinking', async () => {
    const answer = message([REDACTED, { type: 'text', text: REPLY }]);
    expectEstimatedFromSize(await rowOf('/v1/messages', REQUEST, JSON.stringify(answer), 'application/json'));
  });

  it('estimates a stream from the size of its redacted thinking', async () => {
    expectEstimatedFromSize(await rowOf('/v1/messages', { ...REQUEST, stream: true }, redactedStream(null), 'text/event-stream'));
  });

  it('takes the usage the gateway reported for a whole answer', async () => {
    const answer = message([REDACTED, { type: 'text', text: REPLY }], REPORTED);
    expectReported(await rowOf('/v1/messages', REQUEST, JSON.stringify(answer), 'application/json'), REPORTED.output_tokens);
  });

  it('takes the usage the gateway reported for a stream', async () => {
    const end = await rowOf('/v1/messages', { ...REQUEST, stream: true }, redactedStream(REPORTED), 'text/event-stream');
    expectReported(end, REPORTED.output_tokens);
  });
});

/**
 * Claude Code through a gateway that speaks only chat: its Messages request is translated, and the
 * model's thinking comes back as chat's `reasoning_content` (DeepSeek's and vLLM's field) before its
 * `content`. What the model wrote is the same as through a gateway that speaks Messages itself, and
 * so is the estimate of it, whole or streamed.
 */
describe('a Messages answer without reported usage, translated or native', () => {
  const THINKING = Array.from({ length: 80 }, (_, step) => `Step ${step}: weigh option ${step} against the last one.`).join(' ');
  const TEXT = 'The third option is the one to take: it keeps the cache warm.';
  /** A Claude 3.7 thinking block shows its thinking in full; its signature is a short opaque token. */
  const SIGNATURE = Buffer.alloc(96, 'sig').toString('base64');
  const REQUEST = { model: PRICE.model, max_tokens: 4096, messages: [{ role: 'user', content: 'which option?' }] };

  let translated: Harness;
  beforeAll(async () => {
    translated = await startHarness({ profile: { prices: [PRICE], protocolModes: { messages: 'translate' } } });
  });
  afterAll(async () => {
    await translated?.close();
  });

  /** Sends a Messages request through `harness`, its gateway answering `text`; resolves with the row's end. */
  async function messagesRow(harness: Harness, stream: boolean, text: string, contentType: string): Promise<RowEnd> {
    const { response, end } = await harness.postAnswered('/v1/messages', { ...REQUEST, stream }, { text, contentType });
    expect(response.status, response.body).toBe(200);
    return end;
  }

  const completion = {
    id: 'chatcmpl-t1',
    object: 'chat.completion',
    created: 1,
    model: PRICE.model,
    choices: [{ index: 0, message: { role: 'assistant', reasoning_content: THINKING, content: TEXT }, finish_reason: 'stop' }],
  };
  const chunk = (delta: object, finishReason: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-t1', object: 'chat.completion.chunk', created: 1, model: PRICE.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  const chatStream = [
    chunk({ role: 'assistant', content: '' }),
    ...(THINKING.match(/.{1,50}/gs) ?? []).map((piece) => chunk({ reasoning_content: piece })),
    ...(TEXT.match(/.{1,20}/gs) ?? []).map((piece) => chunk({ content: piece })),
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ].join('');

  const thinkingBlock = { type: 'thinking', thinking: THINKING, signature: SIGNATURE };
  const message = {
    id: 'msg_t1',
    type: 'message',
    role: 'assistant',
    model: PRICE.model,
    content: [thinkingBlock, { type: 'text', text: TEXT }],
    stop_reason: 'end_turn',
    stop_sequence: null,
  };
  const messageStream = [
    event('message_start', { message: { ...message, content: [], stop_reason: null } }),
    event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    ...(THINKING.match(/.{1,50}/gs) ?? []).map((thinking) =>
      event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking } }),
    ),
    event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    ...(TEXT.match(/.{1,20}/gs) ?? []).map((text) => event('content_block_delta', { index: 1, delta: { type: 'text_delta', text } })),
    event('content_block_stop', { index: 1 }),
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null } }),
    event('message_stop', {}),
  ].join('');

  it('estimates the same output for a whole answer, translated or native', async () => {
    const throughChat = await messagesRow(translated, false, JSON.stringify(completion), 'application/json');
    const throughMessages = await messagesRow(native, false, JSON.stringify(message), 'application/json');
    expect(throughChat.usageSource).toBe('estimated');
    expect(throughMessages.usageSource).toBe('estimated');
    expect(throughChat.usage?.outputTokens).toBe(throughMessages.usage?.outputTokens);
  });

  it('estimates the same output for a stream, translated or native, as for a whole answer', async () => {
    const whole = await messagesRow(native, false, JSON.stringify(message), 'application/json');
    const throughChat = await messagesRow(translated, true, chatStream, 'text/event-stream');
    const throughMessages = await messagesRow(native, true, messageStream, 'text/event-stream');
    expect(throughChat.usage?.outputTokens).toBe(whole.usage?.outputTokens);
    expect(throughMessages.usage?.outputTokens).toBe(whole.usage?.outputTokens);
  });
});
