import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { sseData } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { keyFreeChatStream } from './fixtures/keyFreeChatStream.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A streamed tool call's name and id (and a legacy function call's name), a few characters a delta.
 * Clients differ on these: openai-python's stream helper appends every string of a delta to what it
 * has, names and ids too (src/openai/lib/streaming/_deltas.py, accumulate_delta), LangChain appends
 * names (langchain_core/utils/_merge.py, merge_dicts); the Vercel AI SDK's openai-compatible provider
 * takes the first delta's name and id as whole and fails without them
 * (openai-compatible-chat-language-model.ts), openai-node's ChatCompletionStream and Cline's
 * ToolCallProcessor keep the last one sent. So a key split across them must be whole in no join,
 * and each delta must keep the piece it came with, the first one as sent.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

type Delta = {
  tool_calls?: [{ index: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }];
  function_call?: { name?: string; arguments?: string };
};

const chunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const deltasOf = (body: string): Delta[] =>
  sseData(body)
    .filter((data) => data !== '[DONE]')
    .map((data) => (JSON.parse(data) as { choices: [{ delta: Delta }] }).choices[0].delta);

describe.each([
  [
    "a tool call's name",
    (piece: string, first: boolean): Delta => ({
      tool_calls: [
        first
          ? { index: 0, id: 'call_1', type: 'function', function: { name: piece, arguments: '' } }
          : { index: 0, function: { name: piece } },
      ],
    }),
    (delta: Delta) => delta.tool_calls?.[0].function?.name,
  ],
  [
    "a tool call's id",
    (piece: string, first: boolean): Delta => ({
      tool_calls: [
        first ? { index: 0, id: piece, type: 'function', function: { name: 'lookup', arguments: '' } } : { index: 0, id: piece },
      ],
    }),
    (delta: Delta) => delta.tool_calls?.[0].id,
  ],
  [
    // aider joins every field of a streamed legacy function call (aider/coders/base_coder.py, show_send_output_stream).
    "a legacy function call's name",
    (piece: string): Delta => ({ function_call: { name: piece } }),
    (delta: Delta) => delta.function_call?.name,
  ],
])('a key in %s, a few characters a delta', (_field, deltaOf, read) => {
  it('is whole in no join the client makes nor in the log, and every delta keeps its piece', async () => {
    const text = `open_${SENTINEL_KEY}_now`;
    const pieces = text.match(/.{1,3}/g) ?? [];
    const body = await keyFreeChatStream(harness, [
      ...pieces.map((piece, position) => chunk(deltaOf(piece, position === 0))),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ]);
    const passed = deltasOf(body)
      .map(read)
      .filter((value): value is string => value !== undefined);
    // Nothing held back: the first delta's piece comes as sent, and no delta loses its piece or gains one.
    expect(passed[0]).toBe(pieces[0]);
    expect(passed).toHaveLength(pieces.length);
    expect(passed.every((piece) => piece !== '')).toBe(true);
    const joined = passed.join('');
    expect(joined.startsWith('open_')).toBe(true);
    expect(joined.endsWith('_now')).toBe(true);
    expect(joined).toContain(REDACTED);
  });
});
