import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SEED_DIALECT } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A gateway's SSE framing, whatever form the spec allows it
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream): line
 * ends of CRLF, LF or a lone CR, `data:` with or without its space, comments, ids. Each client gets
 * every event, in its own protocol, and the request is a success.
 */

let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => {
  harness.simulator.reset();
  harness.simulator.useDialect(SEED_DIALECT);
});

/** The data of each event as an SSE client reads them (several data lines are one event's). */
function eventData(body: string): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (event) => data.push(event.data) });
  parser.feed(body);
  return data;
}

async function streamed(path: string, body: string): Promise<{ data: string[]; end: Awaited<ReturnType<Harness['nextEnd']>> }> {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
  return { data: eventData(response.body), end: await ended };
}

const chunk = (delta: object, finish: string | null, usage?: object): string =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });

const USAGE = { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 };

/**
 * A chat stream with every line ended by `eol`, one chunk per event; the last event is the
 * finish with its usage and no `[DONE]` follows (new-api, some vLLM builds), so losing it loses the answer.
 */
function chatFrames(eol: string): string[] {
  // One event's JSON over two data lines: a client joins them with a line break, which JSON reads as white space.
  const second = chunk({ content: ' there' }, null);
  const cut = second.indexOf('"choices"');
  return [
    `: OPENROUTER PROCESSING${eol}${eol}`,
    `data:${chunk({ role: 'assistant', content: 'Hello' }, null)}${eol}${eol}`,
    `id: 2${eol}data: ${second.slice(0, cut)}${eol}data: ${second.slice(cut)}${eol}${eol}`,
    `data: ${chunk({}, 'stop', USAGE)}${eol}${eol}`,
  ];
}

const LINE_ENDS = [
  ['LF', '\n'],
  ['CRLF', '\r\n'],
  ['a lone CR', '\r'],
] as const;

describe.each(LINE_ENDS)('a gateway whose lines end in %s', (_name, eol) => {
  it('a chat client gets every event, and the request is a success', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: chatFrames(eol) });
    const { data, end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    const contents = data.map(
      (payload) => (JSON.parse(payload) as { choices: [{ delta: { content?: string } }] }).choices[0].delta.content,
    );
    expect(contents).toEqual(['Hello', ' there', undefined]);
    expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });

  it('an Anthropic client gets the whole answer and message_stop', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: chatFrames(eol) });
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const { data, end } = await streamed('/v1/messages', body);
    const events = data.map((payload) => JSON.parse(payload) as { type: string; delta?: { text?: string } });
    expect(events.flatMap((event) => (event.type === 'content_block_delta' ? [event.delta?.text] : [])).join('')).toBe('Hello there');
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(end).toMatchObject({ errorClass: null, usageSource: 'reported' });
  });

  it('a Responses client gets the whole answer and response.completed', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: chatFrames(eol) });
    const { data, end } = await streamed('/v1/responses', JSON.stringify({ model: 'gpt-5-codex', input: 'hi', stream: true }));
    const events = data.map((payload) => JSON.parse(payload) as { type: string; delta?: string });
    expect(events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('')).toBe('Hello there');
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(end).toMatchObject({ errorClass: null, usageSource: 'reported' });
  });
});

const ANTHROPIC_BODY = JSON.stringify({
  model: 'claude-haiku-4-5',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
});

function anthropicEvents(data: string[]): Array<{ type: string; delta?: { text?: string } }> {
  return data.map((payload) => JSON.parse(payload) as { type: string; delta?: { text?: string } });
}

const anthropicText = (events: ReturnType<typeof anthropicEvents>): string =>
  events.flatMap((event) => (event.type === 'content_block_delta' ? [event.delta?.text] : [])).join('');

// The OpenAI SDKs end a stream at data that starts with [DONE] and read nothing after it
// (openai-node's Stream.fromSSEResponse: `sse.data.startsWith('[DONE]')`, then `if (done) continue`).
describe('the [DONE] a gateway sends, as the OpenAI SDKs read it', () => {
  /** A finish without the usage Airlock asked for: only [DONE] says the answer is whole. */
  const withoutUsage = (done: string[]): string[] => [
    `data: ${chunk({ role: 'assistant', content: 'Hello' }, null)}\n\n`,
    `data: ${chunk({}, 'stop')}\n\n`,
    ...done,
  ];

  it.each([
    ['with trailing spaces', 'data: [DONE]  \n\n'],
    ['ended by CRLF', 'data: [DONE]\r\n\r\n'],
  ])('a chat stream ending in [DONE] %s is whole', async (_name, done) => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: withoutUsage([done]) });
    const { data, end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    expect(data.some((payload) => payload.includes('"error"'))).toBe(false);
    expect(end).toMatchObject({ status: 200, errorClass: null });
  });

  it('an Anthropic client on a stream ending in [DONE] with trailing spaces gets message_stop', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: withoutUsage(['data: [DONE] \n\n']) });
    const { data, end } = await streamed('/v1/messages', ANTHROPIC_BODY);
    const events = anthropicEvents(data);
    expect(anthropicText(events)).toBe('Hello');
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(end.errorClass).toBeNull();
  });

  it('an Anthropic client on a stream with [DONE] twice gets one whole message', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: withoutUsage(['data: [DONE]\n\n', 'data: [DONE]\n\n']) });
    const { data, end } = await streamed('/v1/messages', ANTHROPIC_BODY);
    const types = anthropicEvents(data).map((event) => event.type);
    expect(types.filter((type) => type === 'message_stop')).toHaveLength(1);
    expect(types.at(-1)).toBe('message_stop');
    expect(end.errorClass).toBeNull();
  });

  it('what comes after [DONE] is not part of the answer, for a translated client or the log', async () => {
    const after = [`data: ${chunk({ content: ' and more' }, null)}\n\n`, 'data: {"error":{"message":"late failure","code":502}}\n\n'];
    harness.simulator.script({ kind: 'bodyChunks', chunks: withoutUsage(['data: [DONE]\n\n', ...after]) });
    const { data, end } = await streamed('/v1/messages', ANTHROPIC_BODY);
    const events = anthropicEvents(data);
    expect(anthropicText(events)).toBe('Hello');
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(end.errorClass).toBeNull();
  });

  it('a chat client gets the bytes after [DONE] as sent, and the request is still a success', async () => {
    const late = 'data: {"error":{"message":"late failure","code":502}}\n\n';
    harness.simulator.script({ kind: 'bodyChunks', chunks: withoutUsage(['data: [DONE]\n\n', late]) });
    const { data, end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    expect(data.at(-1)).toContain('late failure');
    expect(end).toMatchObject({ status: 200, errorClass: null });
  });
});

/**
 * Errors gateways send in a 200 chat stream after part of the answer, each in its own shape:
 * - OpenRouter: a chunk with `error` {code: HTTP status, message} and finish_reason "error"
 *   (https://openrouter.ai/docs/api/reference/errors-and-debugging, "errors during streaming");
 * - LiteLLM's proxy: `data: {"error": {message, type, param, code: "429"}}` (BerriAI/litellm#39748);
 * - an `event: error` whose data is the error itself, `{code, message}` with no `error` member, as
 *   an upstream sends it to new-api (DeliciousBuding/new-api#142).
 */
const MID_STREAM_ERRORS = [
  [
    'OpenRouter',
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', error: { code: 429, message: 'Rate limit exceeded upstream' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] })}\n\n`,
    'rate_limited',
  ],
  [
    'LiteLLM',
    `data: ${JSON.stringify({ error: { message: 'litellm.RateLimitError: Rate limit exceeded upstream', type: 'None', param: 'None', code: '429' } })}\n\n`,
    'rate_limited',
  ],
  [
    'an event: error with a bare {code, message}',
    'event: error\ndata: {"code":"rate_limit_exceeded","message":"Rate limit exceeded upstream"}\n\n',
    'rate_limited',
  ],
] as const;

describe.each(MID_STREAM_ERRORS)('a chat stream that fails mid-answer with an error in %s shape', (_gateway, errorFrame, errorClass) => {
  const frames = [`data: ${chunk({ role: 'assistant', content: 'Hello' }, null)}\n\n`, errorFrame];

  it('the log has its class and what the gateway said; a chat client gets it as an error its SDK reads', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { data, end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    expect(data.slice(0, 2)).toEqual(eventData(frames.join('')));
    // The OpenAI SDKs throw on data with an `error` member, and on nothing else (openai-node's Stream).
    const errors = data.map((payload) => JSON.parse(payload) as { error?: { message?: string } }).filter((json) => json.error);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error?.message).toContain('Rate limit exceeded upstream');
    expect(end.errorClass).toBe(errorClass);
    expect(end.errorMessage).toContain('Rate limit exceeded upstream');
  });

  it('an Anthropic client gets an error event of its own type with what the gateway said', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { data, end } = await streamed('/v1/messages', ANTHROPIC_BODY);
    const last = JSON.parse(data.at(-1)!) as { type: string; error?: { type: string; message: string } };
    expect(last).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(last.error?.message).toContain('Rate limit exceeded upstream');
    expect(end.errorClass).toBe(errorClass);
  });
});

describe('a single event of several MB (an image as base64 in the answer)', () => {
  const image = 'iVBORw0KGgo'.repeat(400_000);
  const frames = [
    `data: ${chunk({ role: 'assistant', content: '' }, null)}\r\n\r\n`,
    `data: ${chunk({ content: image }, null)}\r\n\r\n`,
    `data: ${chunk({}, 'stop', USAGE)}\r\n\r\n`,
    'data: [DONE]\r\n\r\n',
  ];

  it('reaches a chat client intact', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { data, end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    const contents = data
      .slice(0, -1)
      .map((payload) => (JSON.parse(payload) as { choices: [{ delta: { content?: string } }] }).choices[0].delta.content);
    expect(contents.join('')).toBe(image);
    expect(end).toMatchObject({ status: 200, errorClass: null });
  });

  it('reaches an Anthropic client intact', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { data, end } = await streamed('/v1/messages', ANTHROPIC_BODY);
    const events = anthropicEvents(data);
    expect(anthropicText(events)).toBe(image);
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(end.errorClass).toBeNull();
  });
});
