import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { byteEstimateTokens, estimateTextTokens } from '../../../proxy/spend/estimate.ts';

/**
 * Answers without reported usage whose estimate went wrong, or broke the answer: each case asserts
 * what the user gets (the answer relayed) and that the estimate counts it as the same answer whole.
 */
const PRICE = { model: 'claude-opus-4-8', inputPer1M: 5, outputPer1M: 25 };
const REQUEST = { model: PRICE.model, max_tokens: 16000, messages: [{ role: 'user', content: 'which option?' }] };
const REPLY = 'The third option.';

let native: Harness;
beforeAll(async () => {
  native = await startHarness({
    profile: { prices: [PRICE], protocolModes: { messages: 'native' } },
    simulator: { nativeProtocols: ['messages'] },
  });
});
afterAll(async () => {
  await native?.close();
});

type RowEnd = Awaited<ReturnType<Harness['nextEnd']>>;
const event = (type: string, fields: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const message = (content: object[], usage?: object): object => ({
  id: 'msg_p1',
  type: 'message',
  role: 'assistant',
  model: PRICE.model,
  content,
  stop_reason: content.length === 0 ? null : 'end_turn',
  stop_sequence: null,
  ...(usage === undefined ? {} : { usage }),
});

async function rowOf(stream: boolean, text: string): Promise<{ status: number; end: RowEnd }> {
  native.simulator.script({ kind: 'text', status: 200, contentType: stream ? 'text/event-stream' : 'application/json', text });
  const ended = native.nextEnd();
  const answer = await rawRequest(`${native.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
    body: JSON.stringify({ ...REQUEST, stream }),
  });
  return { status: answer.status, end: await ended };
}

describe('a native Messages answer whose tool input nests deeper than JSON.stringify recurses', () => {
  const DEPTH = 20_000;
  const deepInput = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
  const answerText = (usage: string): string =>
    `{"id":"msg_d","type":"message","role":"assistant","model":"${PRICE.model}","content":[{"type":"tool_use","id":"t1","name":"x","input":${deepInput}}],"stop_reason":"tool_use","stop_sequence":null${usage}}`;

  it('is relayed as it is with usage', async () => {
    const { status, end } = await rowOf(false, answerText(',"usage":{"input_tokens":3,"output_tokens":5}'));
    expect(status).toBe(200);
    expect(end.usageSource).toBe('reported');
  });

  it('is relayed, and estimated from its bytes, without usage', async () => {
    const { status, end } = await rowOf(false, answerText(''));
    expect(status).toBe(200);
    expect(end.usageSource).toBe('estimated');
    // Its tool input cannot be written out again to be counted: the answer's bytes stand for it, at the byte rate.
    expect(end.usage?.outputTokens).toBe(byteEstimateTokens(Buffer.byteLength(answerText(''))));
  });
});

/**
 * A Claude 3.7 style block: thinking shown in full, its signature short; the whole answer is the reference.
 * Anthropic streams one signature_delta per block (pydantic/pydantic-ai#7777, vercel/ai#19663: a live
 * capture shows one), but its SDKs append each piece, so a relay may split it; and OpenRouter's
 * Messages stream was seen sending it after the next block's events (rikkahub/rikkahub#1076).
 */
describe('a signed thinking block streamed in another order than Anthropic sends, without usage', () => {
  const FULL_THINKING = Array.from({ length: 120 }, (_, step) => `Step ${step}: weigh option ${step % 3} against the last one.`).join(' ');
  const SIGNATURE = Buffer.from(Array.from({ length: 600 }, (_, index) => (index * 131 + 7) % 256)).toString('base64');
  const whole = message([
    { type: 'thinking', thinking: FULL_THINKING, signature: SIGNATURE },
    { type: 'text', text: REPLY },
  ]);
  const thinkingDeltas = (FULL_THINKING.match(/.{1,60}/gs) ?? []).map((piece) =>
    event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: piece } }),
  );
  const signatureDeltas = (pieces: string[]): string[] =>
    pieces.map((signature) => event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature } }));
  const textBlock = [
    event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: REPLY } }),
  ];
  const end = [event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null } }), event('message_stop', {})];
  const start = [
    event('message_start', { message: message([]) }),
    event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  ];

  it('counts a signature in two signature_delta pieces as one', async () => {
    const reference = (await rowOf(false, JSON.stringify(whole))).end.usage?.outputTokens;
    const half = SIGNATURE.length / 2;
    const split = [
      ...start,
      ...thinkingDeltas,
      ...signatureDeltas([SIGNATURE.slice(0, half), SIGNATURE.slice(half)]),
      event('content_block_stop', { index: 0 }),
      ...textBlock,
      event('content_block_stop', { index: 1 }),
      ...end,
    ].join('');
    expect((await rowOf(true, split)).end.usage?.outputTokens).toBe(reference);
  });

  it('counts a signature that comes after the next block started with its own block (OpenRouter, rikkahub/rikkahub#1076)', async () => {
    const reference = (await rowOf(false, JSON.stringify(whole))).end.usage?.outputTokens;
    const late = [
      ...start,
      ...thinkingDeltas,
      ...textBlock,
      ...signatureDeltas([SIGNATURE]),
      event('content_block_stop', { index: 0 }),
      event('content_block_stop', { index: 1 }),
      ...end,
    ].join('');
    expect((await rowOf(true, late)).end.usage?.outputTokens).toBe(reference);
  });
});

/** Claude Code's usual turn: a tool call. Translated (chat) and native (Messages), the model wrote the same. */
describe('a tool-call turn without usage, translated or native, whole or streamed', () => {
  let translated: Harness;
  beforeAll(async () => {
    translated = await startHarness({ profile: { prices: [PRICE], protocolModes: { messages: 'translate' } } });
  });
  afterAll(async () => {
    await translated?.close();
  });

  it('estimates the same output', async () => {
    const input = { path: 'src/cache.ts' };
    const completion = {
      id: 'chatcmpl-t',
      object: 'chat.completion',
      created: 1,
      model: PRICE.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: JSON.stringify(input) } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    };
    translated.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: JSON.stringify(completion) });
    const endedTranslated = translated.nextEnd();
    await rawRequest(`${translated.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
      body: JSON.stringify(REQUEST),
    });
    const throughChat = await endedTranslated;
    const throughMessages = (await rowOf(false, JSON.stringify(message([{ type: 'tool_use', id: 'c1', name: 'read_file', input }])))).end;
    // The model wrote the tool's name and its input: counted both ways, as the chat answer's call is.
    expect(throughMessages.usage?.outputTokens).toBe(estimateTextTokens(`read_file${JSON.stringify(input)}`));
    expect(throughChat.usage?.outputTokens).toBe(throughMessages.usage?.outputTokens);
    const streamed = [
      event('message_start', { message: message([]) }),
      event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'c1', name: 'read_file', input: {} } }),
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":' } }),
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '"src/cache.ts"}' } }),
      event('content_block_stop', { index: 0 }),
      event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null } }),
      event('message_stop', {}),
    ].join('');
    expect((await rowOf(true, streamed)).end.usage?.outputTokens).toBe(throughMessages.usage?.outputTokens);
  });
});

/** Codex's usual turn: a function call, from a gateway that speaks Responses itself; the name is written as the chat call's is. */
describe('a Responses function call without usage, whole or streamed', () => {
  let responses: Harness;
  beforeAll(async () => {
    responses = await startHarness({
      profile: { prices: [PRICE], protocolModes: { responses: 'native' } },
      simulator: { nativeProtocols: ['responses'] },
    });
  });
  afterAll(async () => {
    await responses?.close();
  });

  const ARGUMENTS = JSON.stringify({ path: 'src/cache.ts' });
  const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_file', arguments: ARGUMENTS, status: 'completed' };
  const response = (status: string, output: object[]): object => ({ id: 'resp_t', object: 'response', status, model: PRICE.model, output });

  async function outputTokensOf(stream: boolean, text: string): Promise<number | undefined> {
    const contentType = stream ? 'text/event-stream' : 'application/json';
    const { response: answer, end } = await responses.postAnswered(
      '/v1/responses',
      { model: PRICE.model, input: 'read it', stream },
      { text, contentType },
    );
    expect(answer.status, answer.body).toBe(200);
    expect(end.usageSource).toBe('estimated');
    return end.usage?.outputTokens;
  }

  it('counts the name with the arguments', async () => {
    const expected = estimateTextTokens(`read_file${ARGUMENTS}`);
    expect(await outputTokensOf(false, JSON.stringify(response('completed', [call])))).toBe(expected);
    const streamed = [
      event('response.created', { response: response('in_progress', []) }),
      event('response.output_item.added', { output_index: 0, item: { ...call, arguments: '', status: 'in_progress' } }),
      event('response.function_call_arguments.delta', { output_index: 0, item_id: 'fc_1', delta: ARGUMENTS.slice(0, 9) }),
      event('response.function_call_arguments.delta', { output_index: 0, item_id: 'fc_1', delta: ARGUMENTS.slice(9) }),
      event('response.output_item.done', { output_index: 0, item: call }),
      event('response.completed', { response: response('completed', [call]) }),
    ].join('');
    expect(await outputTokensOf(true, streamed)).toBe(expected);
  });
});
