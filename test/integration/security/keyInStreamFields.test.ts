import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * An event stream has fields besides `data:` (WHATWG HTML section 9.2.6): `id:` (which the browser's
 * EventSource and the OpenAI and Anthropic SDKs keep as the last event id), `event:`, `retry:` and
 * comment lines starting with `:`, which a relay uses as keep-alives (OpenRouter sends
 * `: OPENROUTER PROCESSING`). A gateway that writes its debugging into them writes whatever it had.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { protocolModes: { messages: 'native', responses: 'native' } } });
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

const chatChunk = (content: string): string =>
  `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}`;
const chatEnd =
  '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}';

/** A chat stream whose every field but the text carries the key, one way a gateway could write it. */
const keyedChatStreams: Array<[string, string[]]> = [
  ['an id field', [`id: ${SENTINEL_KEY}\ndata: ${chatChunk('Hi')}\n\n`, `data: ${chatEnd}\n\ndata: [DONE]\n\n`]],
  ['an event field', [`event: ${SENTINEL_KEY}\ndata: ${chatChunk('Hi')}\n\n`, `data: ${chatEnd}\n\ndata: [DONE]\n\n`]],
  ['a comment line', [`: debug auth=Bearer ${SENTINEL_KEY}\n\n`, `data: ${chatChunk('Hi')}\n\ndata: ${chatEnd}\n\ndata: [DONE]\n\n`]],
  ['a retry field', [`retry: ${SENTINEL_KEY}\ndata: ${chatChunk('Hi')}\n\n`, `data: ${chatEnd}\n\ndata: [DONE]\n\n`]],
  ['a field no reader knows', [`x-key: ${SENTINEL_KEY}\ndata: ${chatChunk('Hi')}\n\n`, `data: ${chatEnd}\n\ndata: [DONE]\n\n`]],
  [
    'a comment cut across two reads',
    [`: key ${SENTINEL_KEY.slice(0, 20)}`, `${SENTINEL_KEY.slice(20)}\n\ndata: ${chatChunk('Hi')}\n\ndata: ${chatEnd}\n\ndata: [DONE]\n\n`],
  ],
  [
    'an id field with CR line ends',
    [`id: ${SENTINEL_KEY}\r\ndata: ${chatChunk('Hi')}\r\n\r\n`, `data: ${chatEnd}\r\n\r\ndata: [DONE]\r\n\r\n`],
  ],
];

async function post(path: string, body: string) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
  return { response, end: await ended };
}

describe('a gateway that writes the key into an event stream field other than data', () => {
  it.each(keyedChatStreams)(
    'a chat stream with the key in %s: the client and the log see none of it, the text arrives',
    async (_label, chunks) => {
      harness.simulator.script({ kind: 'bodyChunks', chunks });
      const { response, end } = await post('/v1/chat/completions', chatBody({ stream: true }));
      expect(response.status).toBe(200);
      expect(findSentinelInStream(response.body)).toBeNull();
      expect(response.body).toContain('"content":"Hi"');
      expect(response.body).toContain('[DONE]');
      expect(end.errorClass).toBeNull();
      expect(findSentinel(JSON.stringify(end))).toBeNull();
    },
  );

  it('a native Messages stream with the key in its id, event and comment lines: masked for the client and the log', async () => {
    const events = [
      `event: message_start\nid: ${SENTINEL_KEY}\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":0}}}\n\n`,
      `: ${SENTINEL_KEY}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n`,
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
      `event: content_block_stop\nretry: ${SENTINEL_KEY}\ndata: {"type":"content_block_stop","index":0}\n\n`,
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ];
    harness.simulator.script({
      kind: 'text',
      path: '/messages',
      status: 200,
      contentType: 'text/event-stream',
      chunked: true,
      text: events.join(''),
    });
    const { response, end } = await post(
      '/v1/messages',
      JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(response.status).toBe(200);
    expect(findSentinelInStream(response.body)).toBeNull();
    expect(response.body).toContain('"text":"Hi"');
    expect(response.body).toContain('message_stop');
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});
