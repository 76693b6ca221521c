import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

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
async function rowOf(path: string, request: object, text: string, contentType: string) {
  native.simulator.script({ kind: 'text', status: 200, contentType, text });
  const ended = native.nextEnd();
  const answer = await rawRequest(`${native.proxy.url}${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
    body: JSON.stringify(request),
  });
  expect(answer.status, answer.body).toBe(200);
  return ended;
}

/** The tokenizer counts about a token per 4 bytes of such text: at least one per 6, at most one per byte. */
function expectEstimatedFrom(end: Awaited<ReturnType<Harness['nextEnd']>>, written: string): void {
  expect(end.usageSource).toBe('estimated');
  expect(end.usage?.outputTokens).toBeGreaterThan(Buffer.byteLength(written) / 6);
  expect(end.usage?.outputTokens).toBeLessThan(Buffer.byteLength(written) + 100);
}

/**
 * A Responses model that declines writes a `refusal` content part in its output message instead of
 * `output_text` (`{type: 'refusal', refusal}`), streamed as `response.refusal.delta` events: OpenAI's
 * Responses API reference (ResponseOutputRefusal, ResponseRefusalDeltaEvent; the openai SDKs' types).
 */
describe('a native Responses refusal without reported usage', () => {
  const responseOf = (status: string, output: object[]): object => ({
    id: 'resp_r1',
    object: 'response',
    created_at: 1,
    status,
    model: PRICE.model,
    output,
    usage: null,
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

  it('estimates a stream from its refusal deltas', async () => {
    const part = { item_id: 'msg_r1', output_index: 0, content_index: 0 };
    const pieces = REFUSAL.match(/.{1,40}/gs) ?? [];
    const stream = [
      event('response.created', { response: responseOf('in_progress', []) }),
      event('response.output_item.added', { output_index: 0, item: refusalMessage('', 'in_progress') }),
      event('response.content_part.added', { ...part, part: { type: 'refusal', refusal: '' } }),
      ...pieces.map((delta) => event('response.refusal.delta', { ...part, delta })),
      event('response.refusal.done', { ...part, refusal: REFUSAL }),
      event('response.content_part.done', { ...part, part: { type: 'refusal', refusal: REFUSAL } }),
      event('response.output_item.done', { output_index: 0, item: refusalMessage(REFUSAL, 'completed') }),
      event('response.completed', { response: responseOf('completed', [refusalMessage(REFUSAL, 'completed')]) }),
    ].join('');
    const end = await rowOf('/v1/responses', { model: PRICE.model, input: 'write it', stream: true }, stream, 'text/event-stream');
    expectEstimatedFrom(end, REFUSAL);
  });
});

/**
 * A chat model that declines writes `message.refusal` and leaves `content` null (OpenAI's Chat
 * Completions reference: the message's refusal; its structured outputs guide shows such an answer).
 */
describe('a chat refusal without reported usage', () => {
  it('estimates a whole answer from its refusal', async () => {
    const answer = {
      id: 'chatcmpl-r1',
      object: 'chat.completion',
      created: 1,
      model: PRICE.model,
      choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: REFUSAL }, finish_reason: 'stop' }],
    };
    const request = { model: PRICE.model, messages: [{ role: 'user', content: 'write it' }] };
    const end = await rowOf('/v1/chat/completions', request, JSON.stringify(answer), 'application/json');
    expectEstimatedFrom(end, REFUSAL);
  });
});

/**
 * Anthropic returns thinking its safety systems flagged encrypted, as a `redacted_thinking` block whose
 * `data` is opaque (Anthropic's extended thinking guide, "Thinking redaction"; Bedrock's Claude guide,
 * "Thinking encryption"), and thinking is billed as output tokens. Streamed, the block comes whole in its
 * content_block_start, with no deltas (zendev-sh/goai#93, pacifio/cersei#36).
 */
describe('a native Messages answer with redacted thinking, without reported usage', () => {
  /** A stand-in for the encrypted thinking: opaque bytes, base64 as Anthropic sends them. */
  const REDACTED_DATA = Buffer.alloc(3000, 'EmwKAhgBEgy3va3pzix').toString('base64');
  const THINKING_BYTES = Buffer.from(REDACTED_DATA, 'base64').length;
  const REQUEST = { model: PRICE.model, max_tokens: 4096, messages: [{ role: 'user', content: 'think' }] };
  const message = (content: object[]): object => ({
    id: 'msg_rt1',
    type: 'message',
    role: 'assistant',
    model: PRICE.model,
    content,
    stop_reason: content.length === 0 ? null : 'end_turn',
    stop_sequence: null,
  });
  const REDACTED = { type: 'redacted_thinking', data: REDACTED_DATA };

  /** Counted from its size: no fewer tokens than a text of that many bytes would have, no more than one per byte. */
  function expectEstimatedFromSize(end: Awaited<ReturnType<Harness['nextEnd']>>): void {
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.outputTokens).toBeGreaterThan(THINKING_BYTES / 6);
    expect(end.usage?.outputTokens).toBeLessThan(THINKING_BYTES + 100);
  }

  it('estimates a whole answer from the size of its redacted thinking', async () => {
    const answer = message([REDACTED, { type: 'text', text: 'ok' }]);
    expectEstimatedFromSize(await rowOf('/v1/messages', REQUEST, JSON.stringify(answer), 'application/json'));
  });

  it('estimates a stream from the size of its redacted thinking', async () => {
    const stream = [
      event('message_start', { message: message([]) }),
      event('content_block_start', { index: 0, content_block: REDACTED }),
      event('content_block_stop', { index: 0 }),
      event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'ok' } }),
      event('content_block_stop', { index: 1 }),
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null } }),
      event('message_stop', {}),
    ].join('');
    expectEstimatedFromSize(await rowOf('/v1/messages', { ...REQUEST, stream: true }, stream, 'text/event-stream'));
  });
});
