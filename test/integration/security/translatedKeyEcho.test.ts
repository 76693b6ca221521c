import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A gateway that hands the key back inside a stream translated for Claude Code (Messages) or Codex
 * (Responses): whole in a delta, split across two reads of one event, in a tool call's arguments
 * split across two deltas, in an error event that ends the stream. The Responses translation
 * repeats what it streamed in its `.done` events and its final response, and the Messages one
 * turns a mid-stream error into an `error` event of its own words: none of them, nor the row, its
 * bodies or the live feed, may hold the key. keyEcho.test.ts covers chat clients, and an
 * Anthropic client's text delta and gateway error event.
 */
let harness: Harness;
beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

const HALF = SENTINEL_KEY.length / 2;
const ENVELOPE = { id: 'chatcmpl-echo', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
const chunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const USAGE = `data: ${JSON.stringify({ ...ENVELOPE, choices: [], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } })}\n\n`;
const ROLE = chunk({ role: 'assistant', content: '' });
const ending = (finish: string): string[] => [chunk({}, finish), USAGE, 'data: [DONE]\n\n'];

/** One event whose bytes reach Airlock in two reads, split inside the key. */
function splitInKey(event: string): string[] {
  const at = event.indexOf(SENTINEL_KEY) + HALF;
  return [event.slice(0, at), event.slice(at)];
}

const KEY_ERROR = `data: ${JSON.stringify({ error: { message: `Incorrect API key provided: ${SENTINEL_KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } })}\n\n`;

const PLACES: ReadonlyArray<readonly [string, string[]]> = [
  ['whole in a text delta', [ROLE, chunk({ content: `Your key is ${SENTINEL_KEY}, keep it.` }), ...ending('stop')]],
  [
    'in a text delta whose event is split across two reads',
    [ROLE, ...splitInKey(chunk({ content: `Your key is ${SENTINEL_KEY}, keep it.` })), ...ending('stop')],
  ],
  [
    "in a tool call's arguments, split across two deltas",
    [
      chunk({
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: `{"path":"${SENTINEL_KEY.slice(0, HALF)}` } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: `${SENTINEL_KEY.slice(HALF)}.txt"}` } }] }),
      ...ending('tool_calls'),
    ],
  ],
  ['in an error event after some text', [ROLE, chunk({ content: 'Working on it.' }), KEY_ERROR]],
  ['in an error event split across two reads', [ROLE, chunk({ content: 'Working on it.' }), ...splitInKey(KEY_ERROR)]],
  ['in an error event followed by [DONE]', [ROLE, chunk({ content: 'Working on it.' }), KEY_ERROR, 'data: [DONE]\n\n']],
];

const TOOLS_MESSAGES = [{ name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
const TOOLS_RESPONSES = [{ type: 'function', name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];

const REQUESTS = {
  messages: {
    path: '/v1/messages',
    body: JSON.stringify({
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      stream: true,
      tools: TOOLS_MESSAGES,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  },
  responses: {
    path: '/v1/responses',
    body: JSON.stringify({ model: 'gpt-5-codex', input: 'hi', store: false, stream: true, tools: TOOLS_RESPONSES }),
  },
} as const;

describe.each(Object.keys(REQUESTS) as Array<keyof typeof REQUESTS>)('the key in a stream translated for a %s client', (client) => {
  it.each(PLACES)('%s: the client, the row, its bodies and the live feed never get it', async (_place, chunks) => {
    harness.simulator.script({ kind: 'bodyChunks', chunks });
    const ended = harness.nextEnd();
    const { path, body } = REQUESTS[client];
    const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
    const end = await ended;

    expect(response.status).toBe(200);
    expect(findSentinelInStream(response.body)).toBeNull();
    const { bodies, ...row } = end;
    expect(findSentinel(JSON.stringify(row))).toBeNull();
    expect(findSentinelInStream(bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
    expect(findSentinel(bodies.streamText ?? '')).toBeNull();
    const fed = harness.events.map((event) => JSON.stringify(event.type === 'end' ? { ...event, bodies: null } : event)).join('\n');
    expect(findSentinel(fed)).toBeNull();
    const deltas = harness.events.flatMap((event) => (event.type === 'delta' ? [event.text] : [])).join('');
    expect(findSentinel(deltas)).toBeNull();
  });
});
