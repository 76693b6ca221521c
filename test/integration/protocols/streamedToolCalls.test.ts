import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * Tool calls as real OpenAI-compatible servers stream them, where they differ from OpenAI (an id and
 * the name on a call's first piece only), read by the official SDKs through Airlock's translation:
 * Claude Code and Codex run a call only by its name and its whole JSON input.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const USAGE = { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 };
const event = (json: object | string): string => `data: ${typeof json === 'string' ? json : JSON.stringify(json)}\n\n`;
const chunk = (delta: object, finishReason: string | null = null, usage?: object): string =>
  event({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  });
const piece = (call: object): string => chunk({ tool_calls: [call] });

const INPUT = { command: 'ls -la' };

/**
 * Poolside's chat endpoint sends one id with a call's name on its first piece and another id on
 * every later piece of the same call (same index): https://github.com/poolsideai/pool/issues/9.
 */
const POOLSIDE_CALL = [
  chunk({ role: 'assistant', content: null }),
  piece({ index: 0, id: 'call_first', type: 'function', function: { name: 'Bash', arguments: '' } }),
  piece({ index: 0, id: 'call_later', type: 'function', function: { arguments: '{"command":' } }),
  piece({ index: 0, id: 'call_later', type: 'function', function: { arguments: '"ls -la"}' } }),
  chunk({}, 'tool_calls'),
  chunk({}, null, USAGE),
  event('[DONE]'),
];

describe('a call whose later pieces carry another id than its first (Poolside)', () => {
  it('reaches an Anthropic client as one tool_use with its name and whole input', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: POOLSIDE_CALL });
    const ended = harness.nextEnd();
    const client = new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
    const message = await client.messages
      .stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 256,
        tools: [{ name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
        messages: [{ role: 'user', content: 'list the files' }],
      })
      .finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([{ type: 'tool_use', id: 'call_first', name: 'Bash', input: INPUT }]);
    const end = await ended;
    expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported', usage: { inputTokens: 30, outputTokens: 12 } });
    expect(findSentinel(JSON.stringify(message) + JSON.stringify(end))).toBeNull();
  });

  it('reaches a Responses client as one function_call with its name and whole arguments', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: POOLSIDE_CALL });
    const ended = harness.nextEnd();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
    const stream = await client.responses.create({
      model: 'gpt-5-codex',
      input: 'list the files',
      tools: [
        { type: 'function', name: 'Bash', strict: false, parameters: { type: 'object', properties: { command: { type: 'string' } } } },
      ],
      stream: true,
      store: false,
    });
    let completed: OpenAI.Responses.Response | null = null;
    for await (const streamed of stream) if (streamed.type === 'response.completed') completed = streamed.response;
    const calls = completed?.output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ call_id: 'call_first', name: 'Bash' })]);
    expect(JSON.parse(calls?.[0]?.arguments ?? 'null')).toEqual(INPUT);
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });
});

/**
 * A call of a tool that takes no parameters, its arguments `""` rather than `{}`, as some models'
 * servers send it (sigoden/aichat#1217, microsoft/vscode-copilot-chat#1560). OpenAI's Responses API
 * gives a function call's arguments as JSON text, and its clients parse them: the Agents SDK threw
 * on `""` (openai/openai-agents-js#664).
 */
describe('a call of a tool without parameters whose arguments are empty', () => {
  const TOOLS: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'list_mcp_resources', strict: false, parameters: { type: 'object', properties: {} } },
  ];
  const STREAMED = [
    piece({ index: 0, id: 'call_list', type: 'function', function: { name: 'list_mcp_resources', arguments: '' } }),
    chunk({}, 'tool_calls'),
    chunk({}, null, USAGE),
    event('[DONE]'),
  ];
  const WHOLE = JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_list', type: 'function', function: { name: 'list_mcp_resources', arguments: '' } }],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: USAGE,
  });
  const client = () => new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });

  it('reaches a streaming Responses client as a function_call whose arguments are the empty object', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: STREAMED });
    const ended = harness.nextEnd();
    const stream = await client().responses.create({ model: 'gpt-5-codex', input: 'list', tools: TOOLS, stream: true, store: false });
    let deltas = '';
    let done: string | null = null;
    let completed: OpenAI.Responses.Response | null = null;
    for await (const streamed of stream) {
      if (streamed.type === 'response.function_call_arguments.delta') deltas += streamed.delta;
      if (streamed.type === 'response.function_call_arguments.done') done = streamed.arguments;
      if (streamed.type === 'response.completed') completed = streamed.response;
    }
    expect(deltas).toBe('{}');
    expect(done).toBe('{}');
    expect(completed?.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'list_mcp_resources', arguments: '{}' })]);
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });

  it('reaches a Responses client asking for a whole answer as a function_call whose arguments are the empty object', async () => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: WHOLE });
    const ended = harness.nextEnd();
    const response = await client().responses.create({ model: 'gpt-5-codex', input: 'list', tools: TOOLS, store: false });
    expect(response.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'list_mcp_resources', arguments: '{}' })]);
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });
});

/**
 * A whole answer whose tool calls carry no id, or an empty one: llama.cpp's server answered so
 * (ggml-org/llama.cpp#11992), and a gateway in front of it passes it on (an empty id:
 * Arize-ai/openinference#2240). The AI SDK's OpenAI-compatible reader makes one up for a whole
 * answer (anomalyco/opencode#25925 says so of its non-streaming path).
 */
describe('a whole answer whose tool calls have no id', () => {
  const answer = (ids: Array<string | undefined>) =>
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: ids.map((id, position) => ({
              ...(id === undefined ? {} : { id }),
              type: 'function',
              function: { name: 'Bash', arguments: JSON.stringify({ command: `ls ${position}` }) },
            })),
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: USAGE,
    });
  const bash = { name: 'Bash', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } };

  it('reaches an Anthropic client as tool_use blocks, each with an id of its own', async () => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: answer([undefined, '']) });
    const ended = harness.nextEnd();
    const client = new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
    const message = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      tools: [bash],
      messages: [{ role: 'user', content: 'list the files twice' }],
    });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    expect(uses.map((use) => use.input)).toEqual([{ command: 'ls 0' }, { command: 'ls 1' }]);
    const ids = uses.map((use) => use.id);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });

  it('reaches a Responses client as function_call items, each with a call_id of its own', async () => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: answer([undefined, '']) });
    const ended = harness.nextEnd();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
    const response = await client.responses.create({
      model: 'gpt-5-codex',
      input: 'list the files twice',
      tools: [{ type: 'function', name: 'Bash', strict: false, parameters: bash.input_schema }],
      store: false,
    });
    const calls = response.output.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([{ command: 'ls 0' }, { command: 'ls 1' }]);
    const ids = calls.map((call) => call.call_id);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });
});

/**
 * Arguments given as a JSON object rather than its text: Hugging Face TGI's chat endpoint answers so
 * (huggingface/text-generation-inference#2461), and llama.cpp's server did, streamed and whole
 * (ggml-org/llama.cpp#20198, #20202).
 */
describe('a tool call whose arguments are an object', () => {
  const ARGUMENTS = { command: 'git status', timeout: 30 };
  const call = { id: 'call_obj', type: 'function', function: { name: 'Bash', arguments: ARGUMENTS } };
  const WHOLE = JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }],
    usage: USAGE,
  });
  const STREAMED = [piece({ index: 0, ...call }), chunk({}, 'tool_calls'), chunk({}, null, USAGE), event('[DONE]')];
  const request = {
    model: 'claude-sonnet-4-6',
    max_tokens: 256,
    tools: [{ name: 'Bash', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } }],
    messages: [{ role: 'user' as const, content: 'show the status' }],
  };
  const client = () => new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });

  it.each([
    ['whole', WHOLE],
    ['streamed', STREAMED],
  ])('reaches an Anthropic client as a tool_use holding them (%s)', async (_form, answer) => {
    harness.simulator.script(
      typeof answer === 'string'
        ? { kind: 'text', status: 200, contentType: 'application/json', text: answer }
        : { kind: 'bodyChunks', chunks: answer },
    );
    const ended = harness.nextEnd();
    const message =
      typeof answer === 'string' ? await client().messages.create(request) : await client().messages.stream(request).finalMessage();
    expect(message.content).toEqual([{ type: 'tool_use', id: 'call_obj', name: 'Bash', input: ARGUMENTS }]);
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });

  it('reaches a streaming Responses client as a function_call with their JSON text', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: STREAMED });
    const ended = harness.nextEnd();
    const openai = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
    const stream = await openai.responses.create({
      model: 'gpt-5-codex',
      input: 'show the status',
      tools: [{ type: 'function', name: 'Bash', strict: false, parameters: request.tools[0]!.input_schema }],
      stream: true,
      store: false,
    });
    let completed: OpenAI.Responses.Response | null = null;
    for await (const streamed of stream) if (streamed.type === 'response.completed') completed = streamed.response;
    const [functionCall] = completed?.output ?? [];
    expect(functionCall?.type === 'function_call' && JSON.parse(functionCall.arguments)).toEqual(ARGUMENTS);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });
});

describe('a streamed tool call whose arguments are an object, from a gateway that reports no usage', () => {
  const LONG = { command: 'find . -name "*.ts" -not -path "./node_modules/*" | xargs wc -l | sort -n | tail -20' };
  const streamed = (args: unknown) => [
    piece({ index: 0, id: 'call_est', type: 'function', function: { name: 'Bash', arguments: args } }),
    chunk({}, 'tool_calls'),
    event('[DONE]'),
  ];

  it('is estimated as the same output as its JSON text', async () => {
    const estimateOf = async (args: unknown) => {
      harness.simulator.script({ kind: 'bodyChunks', chunks: streamed(args) });
      const ended = harness.nextEnd();
      await new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 }).messages
        .stream({ model: 'claude-sonnet-4-6', max_tokens: 256, messages: [{ role: 'user', content: 'count lines' }] })
        .finalMessage();
      return (await ended).usage;
    };
    const asText = await estimateOf(JSON.stringify(LONG));
    const asObject = await estimateOf(LONG);
    expect(asText?.outputTokens).toBeGreaterThan(10);
    expect(asObject).toEqual(asText);
  });
});
