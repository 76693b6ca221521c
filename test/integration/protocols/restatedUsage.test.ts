import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A stream that states its usage twice with different numbers. OpenAI's final usage chunk (the one
 * `stream_options.include_usage` adds, just before `[DONE]`) counts the entire request (OpenAI's
 * API reference, ChatCompletionStreamOptions), and relays that state a count earlier state a
 * partial one: CLIProxyAPI saw usage on every chunk, only the last one real (router-for-me/CLIProxyAPI#3077),
 * and a client that took the finish_reason chunk for the end lost the usage chunk after it
 * (agentjido/req_llm#781). The last stated usage wins, for a chat client and a translated one alike:
 * the row bills it, and Claude Code's message_delta and Codex's response.completed say it.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const chunk = (fields: object): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', ...fields })}\n\n`;
const EARLY_USAGE = { prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 };
const FINAL_USAGE = { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 };
const TEXT = chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello there' }, finish_reason: null }] });
const FINISH = chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
const FINAL = chunk({ choices: [], usage: FINAL_USAGE });

/**
 * The gateway's chunks; the last two (the final usage and `[DONE]`) are sent once the proxy has read the earlier
 * count: a finish chunk's is reported (a `usage` event), a running count's chunk is known by its text (a `delta`).
 */
const STREAMS = [
  [
    'a partial count on the finish chunk, then the usage chunk',
    'usage',
    [TEXT, chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: EARLY_USAGE }), FINAL, 'data: [DONE]\n\n'],
  ],
  [
    'a running count on a text chunk, then the usage chunk',
    'delta',
    [
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello there' }, finish_reason: null }], usage: EARLY_USAGE }),
      FINISH,
      FINAL,
      'data: [DONE]\n\n',
    ],
  ],
] as const;

/** Sends the request with the stream paused before its final usage until the proxy has read the earlier count. */
async function send(path: string, body: string, { chunks, earlierRead: readEvent }: { chunks: readonly string[]; earlierRead: string }) {
  let earlierRead: () => void = () => undefined;
  const earlier = new Promise<void>((resolve) => {
    earlierRead = resolve;
  });
  const unsubscribe = harness.subscribe((event) => {
    if (event.type === readEvent) earlierRead();
  });
  harness.simulator.script({ kind: 'bodyChunks', chunks: [...chunks], pause: { beforeChunk: 2, until: earlier } });
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
  const end = await ended;
  unsubscribe();
  return { events: sseData(response.body).filter((data) => data !== '[DONE]'), end };
}

const MESSAGES = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
const RESPONSES = JSON.stringify({ model: 'gpt-5-codex', input: 'hi', store: false, stream: true });
const BILLED = { inputTokens: 7, outputTokens: 5 };

describe.each(STREAMS)('%s', (_shape, earlierRead, chunks) => {
  const stream = { chunks, earlierRead };
  it('a chat client is billed the last', async () => {
    const { end } = await send('/v1/chat/completions', chatBody({ stream: true }), stream);
    expect(end).toMatchObject({ errorClass: null, usageSource: 'reported', usage: BILLED });
  });

  it('Claude Code is billed the last, and its message_delta says it', async () => {
    const { events, end } = await send('/v1/messages', MESSAGES, stream);
    const delta = events
      .map((data) => JSON.parse(data) as { type: string; usage?: object })
      .find((event) => event.type === 'message_delta');
    expect(delta?.usage).toMatchObject({ output_tokens: 5 });
    expect(end).toMatchObject({ errorClass: null, usageSource: 'reported', usage: BILLED });
  });

  it('Codex is billed the last, and its response.completed says it', async () => {
    const { events, end } = await send('/v1/responses', RESPONSES, stream);
    const completed = events
      .map((data) => JSON.parse(data) as { type: string; response?: { usage?: object } })
      .find((event) => event.type === 'response.completed');
    expect(completed?.response?.usage).toMatchObject({ input_tokens: 7, output_tokens: 5 });
    expect(end).toMatchObject({ errorClass: null, usageSource: 'reported', usage: BILLED });
  });
});
