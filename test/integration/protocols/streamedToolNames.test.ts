import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../simulator/dialect.ts';
import { geminiNameInPieces, nimNameEveryDelta } from '../../simulator/dialects.ts';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A streamed tool call's name as gateways that do not send it whole once send it (dialects.ts cites
 * them): cut in pieces (Gemini) or whole again in every chunk (MiniMax through NIM). Wherever Airlock
 * builds something from the chat deltas, the client must get the name whole and once: Claude Code,
 * Codex and OpenAI SDK scripts run a call by its name.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const TOOL_NAME = 'edit_existing_file';
const INPUT = { path: 'src/app.ts', edit: 'rename the export' };
const PARAMETERS = { type: 'object', properties: { path: { type: 'string' }, edit: { type: 'string' } } } as const;

const scriptCall = (dialect: Dialect, streamsWholeRequests: boolean): void => {
  harness.simulator.useDialect({ ...dialect, streamsWholeRequests });
  harness.simulator.script({ kind: 'reply', toolCalls: [{ name: TOOL_NAME, arguments: JSON.stringify(INPUT) }] });
};

const anthropic = (): Anthropic => new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
const openai = (): OpenAI => new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });

const MESSAGES_REQUEST = {
  model: 'claude-sonnet-4-6',
  max_tokens: 256,
  tools: [{ name: TOOL_NAME, input_schema: PARAMETERS }],
  messages: [{ role: 'user' as const, content: 'edit the file' }],
};

const RESPONSES_REQUEST = {
  model: 'gpt-5-codex',
  input: 'edit the file',
  tools: [{ type: 'function' as const, name: TOOL_NAME, strict: false, parameters: PARAMETERS }],
  store: false,
};

describe.each([
  ['in pieces (Gemini)', geminiNameInPieces],
  ['repeated in every chunk (MiniMax through NIM)', nimNameEveryDelta],
])('a tool call whose streamed name comes %s', (_case, dialect) => {
  it('reaches an OpenAI SDK client that asked for a whole answer with the name whole, once', async () => {
    scriptCall(dialect, true);
    const ended = harness.nextEnd();
    const completion = await openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'edit the file' }],
      tools: [{ type: 'function', function: { name: TOOL_NAME, parameters: PARAMETERS } }],
      stream: false,
    });
    const [call] = completion.choices[0]?.message.tool_calls ?? [];
    expect(call?.type === 'function' ? call.function.name : null).toBe(TOOL_NAME);
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : 'null')).toEqual(INPUT);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });

  it('reaches a streaming Anthropic client as a tool_use whose block starts with the name whole, once', async () => {
    scriptCall(dialect, false);
    const ended = harness.nextEnd();
    const stream = anthropic().messages.stream(MESSAGES_REQUEST);
    const startedNames: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') startedNames.push(event.content_block.name);
    });
    const message = await stream.finalMessage();
    expect(startedNames).toEqual([TOOL_NAME]);
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: TOOL_NAME, input: INPUT })]);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });

  it('reaches an Anthropic client that asked for a whole answer as a tool_use with the name whole, once', async () => {
    scriptCall(dialect, true);
    const ended = harness.nextEnd();
    const message = await anthropic().messages.create(MESSAGES_REQUEST);
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: TOOL_NAME, input: INPUT })]);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });

  it('reaches a streaming Responses client as a function_call named whole, once, when added and when done', async () => {
    scriptCall(dialect, false);
    const ended = harness.nextEnd();
    const stream = await openai().responses.create({ ...RESPONSES_REQUEST, stream: true });
    const itemNames: string[] = [];
    let completed: OpenAI.Responses.Response | null = null;
    for await (const event of stream) {
      if (
        (event.type === 'response.output_item.added' || event.type === 'response.output_item.done') &&
        event.item.type === 'function_call'
      )
        itemNames.push(event.item.name);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(itemNames).toEqual([TOOL_NAME, TOOL_NAME]);
    const calls = completed?.output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ name: TOOL_NAME })]);
    expect(JSON.parse(calls?.[0]?.arguments ?? 'null')).toEqual(INPUT);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });

  it('reaches a Responses client that asked for a whole answer as a function_call named whole, once', async () => {
    scriptCall(dialect, true);
    const ended = harness.nextEnd();
    const response = await openai().responses.create({ ...RESPONSES_REQUEST, stream: false });
    const calls = response.output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ name: TOOL_NAME })]);
    expect(JSON.parse(calls[0]?.arguments ?? 'null')).toEqual(INPUT);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });
});

/**
 * The key guard hands a streamed name's pieces on at once, masked so that no join of them holds the
 * key (toolCallNameKey.test.ts): the name Airlock now joins from them must hold it masked, not whole.
 */
describe('a tool name streamed in pieces that holds the gateway key', () => {
  const KEYED_NAME = `open_${SENTINEL_KEY}_now`;
  const chunk = (delta: object, finishReason: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  const KEYED_CALL = [
    ...(KEYED_NAME.match(/.{1,5}/g) ?? []).map((piece, position) =>
      chunk({
        tool_calls: [
          position === 0
            ? { index: 0, id: 'call_1', type: 'function', function: { name: piece } }
            : { index: 0, function: { name: piece } },
        ],
      }),
    ),
    chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(INPUT) } }] }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ];
  const expectMasked = (name: string | undefined): void => {
    expect(name?.startsWith('open_')).toBe(true);
    expect(name?.endsWith('_now')).toBe(true);
    expect(name).toContain(REDACTED);
  };

  /** The row and the answer the log keeps (a Buffer, which JSON would write as numbers). */
  const loggedAnswerOf = (end: Awaited<ReturnType<Harness['nextEnd']>>): string =>
    JSON.stringify({ ...end, bodies: null }) + (end.bodies.responseBody?.toString('utf8') ?? '');

  beforeEach(() => harness.simulator.useDialect('seed'));

  it('reaches a streaming Anthropic client and the log masked', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: KEYED_CALL });
    const ended = harness.nextEnd();
    const message = await anthropic().messages.stream(MESSAGES_REQUEST).finalMessage();
    const end = await ended;
    expectMasked(message.content[0]?.type === 'tool_use' ? message.content[0].name : undefined);
    expect(findSentinel(JSON.stringify(message) + loggedAnswerOf(end))).toBeNull();
  });

  it('reaches a Responses client that asked for a whole answer and the log masked', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: KEYED_CALL });
    const ended = harness.nextEnd();
    const response = await openai().responses.create({ ...RESPONSES_REQUEST, stream: false });
    const end = await ended;
    const [call] = response.output.filter((item) => item.type === 'function_call');
    expectMasked(call?.name);
    expect(findSentinel(JSON.stringify(response) + loggedAnswerOf(end))).toBeNull();
  });
});
