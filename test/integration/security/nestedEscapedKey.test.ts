import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, findSentinelInNestedJson, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A gateway that echoes the key inside a tool call's arguments, its dashes written as JSON escapes:
 * the arguments are JSON inside a JSON string, so the answer's text writes each escape twice
 * (`sk\\u002dairlock…`). A client that parses the answer and then the arguments (Codex, any agent
 * running the tool) reads the key whole, and so would a reader of the log's copy.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.reset());

const KEY_ESCAPED_TWICE = SENTINEL_KEY.replaceAll('-', '\\\\u002d');
const ARGUMENTS_TEXT = `{\\"path\\":\\"${KEY_ESCAPED_TWICE}\\"}`;
const CHUNK_ENVELOPE = '"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini"';
const STREAMED = [
  `data: {${CHUNK_ENVELOPE},"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}\n\n`,
  `data: {${CHUNK_ENVELOPE},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"${ARGUMENTS_TEXT}"}}]},"finish_reason":null}]}\n\n`,
  `data: {${CHUNK_ENVELOPE},"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n`,
  'data: [DONE]\n\n',
];
const WHOLE =
  '{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,' +
  `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"${ARGUMENTS_TEXT}"}}]},"finish_reason":"tool_calls"}],` +
  '"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}';
const PATH_SCHEMA = { type: 'object', properties: { path: { type: 'string' } } };
const MESSAGES_TOOLS = [{ name: 'read_file', input_schema: PATH_SCHEMA }];
const RESPONSES_TOOLS = [{ type: 'function', name: 'read_file', parameters: PATH_SCHEMA }];
const CHAT_TOOLS = [{ type: 'function', function: { name: 'read_file', parameters: PATH_SCHEMA } }];

describe('a key escaped twice inside tool-call arguments', () => {
  it.each([
    [
      'chat, answered whole',
      '/v1/chat/completions',
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], tools: CHAT_TOOLS },
      false,
    ],
    ['Responses translated, answered whole', '/v1/responses', { model: 'gpt-5-codex', input: 'hi', tools: RESPONSES_TOOLS }, false],
    [
      'Responses translated, streamed but answered whole',
      '/v1/responses',
      { model: 'gpt-5-codex', input: 'hi', stream: true, tools: RESPONSES_TOOLS },
      false,
    ],
    [
      'Messages translated, answered whole',
      '/v1/messages',
      { model: 'claude-haiku-4-5', max_tokens: 64, tools: MESSAGES_TOOLS, messages: [{ role: 'user', content: 'hi' }] },
      false,
    ],
    ['Responses translated, streamed', '/v1/responses', { model: 'gpt-5-codex', input: 'hi', stream: true, tools: RESPONSES_TOOLS }, true],
    [
      'Messages translated, streamed',
      '/v1/messages',
      { model: 'claude-haiku-4-5', max_tokens: 64, stream: true, tools: MESSAGES_TOOLS, messages: [{ role: 'user', content: 'hi' }] },
      true,
    ],
  ])('never reaches the client or the log: %s', async (_case, path, body, streamed) => {
    harness.simulator.script(
      streamed ? { kind: 'bodyChunks', chunks: STREAMED } : { kind: 'text', status: 200, contentType: 'application/json', text: WHOLE },
    );
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
    const end = await ended;
    expect(response.status).toBe(200);
    // The tool call still reaches the client, its path masked.
    expect(response.body).toContain('read_file');
    expect(findSentinelInNestedJson(response.body)).toBeNull();
    const { bodies, ...row } = end;
    expect(findSentinel(JSON.stringify(row))).toBeNull();
    expect(findSentinelInNestedJson(bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
  });
});
