import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../simulator/dialect.ts';
import { geminiNameInPieces, nimNameEveryDelta } from '../../simulator/dialects.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/** An agent writing a file: the tool call's arguments are the whole answer, about 1500 tokens of text. */
const FILE_TEXT = Array.from({ length: 300 }, (_, line) => `line ${line}: const value${line} = compute(${line});`).join('\n');
const WRITE_FILE = { name: 'write_file', arguments: JSON.stringify({ path: 'src/generated.ts', content: FILE_TEXT }) };
const THINKING = Array.from({ length: 200 }, (_, step) => `Step ${step}: weigh option ${step} against the last one.`).join(' ');
const TOOLS = [{ type: 'function', function: { name: 'write_file', parameters: { type: 'object' } } }];
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 4 };

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { prices: [PRICE] } });
});
afterAll(async () => {
  await harness?.close();
});

/**
 * A gateway that reports no usage leaves Airlock to estimate what the answer cost. The estimate
 * must count everything the model wrote: tool-call arguments and reasoning are billed output too.
 */
describe('an answer without reported usage', () => {
  it.each([
    { name: 'a streamed tool call', stream: true, reply: { toolCalls: [WRITE_FILE] }, written: WRITE_FILE.arguments },
    { name: 'a tool call', stream: false, reply: { toolCalls: [WRITE_FILE] }, written: WRITE_FILE.arguments },
    { name: 'streamed reasoning', stream: true, reply: { reasoning: THINKING, content: 'ok' }, written: THINKING },
  ])('estimates the output of $name from what the model wrote', async ({ stream, reply, written }) => {
    harness.simulator.script({ kind: 'reply', usage: false, ...reply });
    const ended = harness.nextEnd();
    const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
      body: chatBody({ stream, tools: TOOLS }),
    });
    expect(answer.status, answer.body).toBe(200);
    const end = await ended;
    expect(end.usageSource).toBe('estimated');
    // The tokenizer counts about a token per 4 bytes of such text: at least one per 6, at most one per byte.
    expect(end.usage?.outputTokens).toBeGreaterThan(Buffer.byteLength(written) / 6);
    expect(end.usage?.outputTokens).toBeLessThan(Buffer.byteLength(written) + 100);
  });
});

/**
 * How a gateway streams a tool call's name (dialects.ts: whole once, in pieces, whole again on every
 * delta) is its wire shape, not more output: the model wrote the name once, and is billed for it once.
 */
describe('a streamed tool call without reported usage, its name sent as the gateway sends it', () => {
  const estimatedOutputTokens = async (dialect: Dialect): Promise<number | undefined> => {
    harness.simulator.useDialect(dialect);
    harness.simulator.script({ kind: 'reply', usage: false, toolCalls: [WRITE_FILE] });
    const ended = harness.nextEnd();
    const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
      body: chatBody({ stream: true, tools: TOOLS }),
    });
    expect(answer.status, answer.body).toBe(200);
    const end = await ended;
    expect(end.usageSource).toBe('estimated');
    return end.usage?.outputTokens;
  };
  afterAll(() => harness.simulator.useDialect('seed'));

  it.each([
    ['in pieces (Gemini)', geminiNameInPieces],
    ['whole on every delta (MiniMax through NIM)', nimNameEveryDelta],
  ])('estimates the name %s as written once', async (_case, dialect) => {
    // The dialect's other habits (Gemini's running usage) aside: only how the name travels differs.
    const onceShape = { ...dialect, stream: { ...dialect.stream, toolCallNames: 'firstDelta' as const } };
    expect(await estimatedOutputTokens(dialect)).toBe(await estimatedOutputTokens(onceShape));
  });
});

/**
 * Codex 0.169 offers gpt-5.5 a client-run `tool_search` and keeps its MCP tools back until the model
 * searches (toolSearch.ts). Through a gateway that speaks Responses itself, the model's search comes
 * as a `tool_search_call` item whose `arguments` is an object given whole in the item: the openai
 * SDK's ResponseToolSearchCall (openai-node 6.x) has `arguments: unknown` and no delta event of its own.
 */
describe('a native Responses stream without reported usage', () => {
  const SEARCH_ARGUMENTS = { query: 'tools that read the weather forecast, the rain radar and the pollen count for a city', limit: 8 };
  const SEARCH_CALL = { id: 'tsc_1', type: 'tool_search_call', call_id: 'call_s1', execution: 'client', arguments: SEARCH_ARGUMENTS };
  const event = (type: string, fields: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
  const response = (status: string, output: object[]): object => ({
    id: 'resp_s1',
    object: 'response',
    created_at: 1,
    status,
    model: PRICE.model,
    output,
    usage: null,
  });

  let native: Harness;
  beforeAll(async () => {
    native = await startHarness({
      profile: { prices: [PRICE], protocolModes: { responses: 'native' } },
      simulator: { nativeProtocols: ['responses'] },
    });
  });
  afterAll(async () => {
    await native?.close();
  });

  it("estimates the output of a tool search from the search's arguments", async () => {
    native.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'text/event-stream',
      text: [
        event('response.created', { response: response('in_progress', []) }),
        event('response.output_item.added', { output_index: 0, item: { ...SEARCH_CALL, status: 'in_progress' } }),
        event('response.output_item.done', { output_index: 0, item: { ...SEARCH_CALL, status: 'completed' } }),
        event('response.completed', { response: response('completed', [{ ...SEARCH_CALL, status: 'completed' }]) }),
      ].join(''),
    });
    const ended = native.nextEnd();
    const answer = await rawRequest(`${native.proxy.url}/v1/responses`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
      body: JSON.stringify({
        model: PRICE.model,
        input: 'What is the weather in Paris?',
        stream: true,
        tools: [{ type: 'tool_search', execution: 'client', parameters: { type: 'object' } }],
      }),
    });
    expect(answer.status, answer.body).toBe(200);
    const end = await ended;
    expect(end.usageSource).toBe('estimated');
    const written = JSON.stringify(SEARCH_ARGUMENTS);
    expect(end.usage?.outputTokens).toBeGreaterThan(Buffer.byteLength(written) / 6);
    expect(end.usage?.outputTokens).toBeLessThan(Buffer.byteLength(written) + 100);
  });
});

/**
 * A whole answer from a gateway that speaks Messages or Responses itself, without usage: its tool
 * calls and thinking are billed output as a chat answer's are (Anthropic's Messages reference: a
 * tool_use block's `input` object, a thinking block's `thinking`; OpenAI's Responses reference: a
 * function_call's `arguments` string, a reasoning item's summary text).
 */
describe('a native whole answer without reported usage', () => {
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

  const FILE_INPUT = { path: 'src/generated.ts', content: FILE_TEXT };
  it.each([
    {
      name: "a Messages tool_use's input",
      path: '/v1/messages',
      request: { model: PRICE.model, max_tokens: 4096, messages: [{ role: 'user', content: 'write it' }] },
      answer: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: PRICE.model,
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'write_file', input: FILE_INPUT }],
        stop_reason: 'tool_use',
      },
      written: JSON.stringify(FILE_INPUT),
    },
    {
      name: 'Messages thinking',
      path: '/v1/messages',
      request: { model: PRICE.model, max_tokens: 4096, messages: [{ role: 'user', content: 'think' }] },
      answer: {
        id: 'msg_2',
        type: 'message',
        role: 'assistant',
        model: PRICE.model,
        content: [
          { type: 'thinking', thinking: THINKING, signature: 'sig' },
          { type: 'text', text: 'ok' },
        ],
        stop_reason: 'end_turn',
      },
      written: THINKING,
    },
    {
      name: "a Responses function_call's arguments",
      path: '/v1/responses',
      request: { model: PRICE.model, input: 'write it' },
      answer: {
        id: 'resp_1',
        object: 'response',
        status: 'completed',
        model: PRICE.model,
        output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'write_file', arguments: WRITE_FILE.arguments }],
      },
      written: WRITE_FILE.arguments,
    },
    {
      name: 'Responses reasoning',
      path: '/v1/responses',
      request: { model: PRICE.model, input: 'think' },
      answer: {
        id: 'resp_2',
        object: 'response',
        status: 'completed',
        model: PRICE.model,
        output: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: THINKING }] },
          { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] },
        ],
      },
      written: THINKING,
    },
  ])('estimates the output of $name from what the model wrote', async ({ path, request, answer, written }) => {
    native.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: JSON.stringify(answer) });
    const ended = native.nextEnd();
    const response = await rawRequest(`${native.proxy.url}${path}`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
      body: JSON.stringify(request),
    });
    expect(response.status, response.body).toBe(200);
    const end = await ended;
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.outputTokens).toBeGreaterThan(Buffer.byteLength(written) / 6);
    expect(end.usage?.outputTokens).toBeLessThan(Buffer.byteLength(written) + 100);
  });
});
