import { describe, expect, it } from 'vitest';
import { createAnthropicStreamTranslator } from '../../../proxy/protocols/anthropic/stream.ts';
import { STREAM_ENDED_EARLY_MESSAGE } from '../../../proxy/protocols/streamTranslator.ts';
import {
  characterPieces,
  fedChunks,
  finishChunk,
  parseFrames,
  reasoningChunk,
  refusalChunk,
  textChunk,
  toolChunk,
  usageChunk,
  withFinishReason,
} from './chatChunks.ts';
import type { SseFrame, ToolPiece } from './chatChunks.ts';

interface RebuiltBlock {
  type: string;
  text: string;
  partialJson: string;
  id?: unknown;
  name?: unknown;
}

/** Replays Anthropic events the way a client does, checking the ordering rules on the way. */
function rebuildMessage(frames: SseFrame[]) {
  expect(frames[0]?.event).toBe('message_start');
  const blocks: RebuiltBlock[] = [];
  let openIndex: number | null = null;
  for (const { event, data } of frames.slice(1, -2)) {
    const index = data['index'] as number;
    if (event === 'content_block_start') {
      expect(openIndex).toBeNull();
      expect(index).toBe(blocks.length);
      const block = data['content_block'] as Record<string, unknown>;
      blocks.push({ type: block['type'] as string, text: '', partialJson: '', id: block['id'], name: block['name'] });
      openIndex = index;
    } else if (event === 'content_block_delta') {
      expect(index).toBe(openIndex);
      const delta = data['delta'] as Record<string, string>;
      const block = blocks[index]!;
      if (delta['type'] === 'text_delta') block.text += delta['text'];
      else block.partialJson += delta['partial_json'];
    } else {
      expect(event).toBe('content_block_stop');
      expect(index).toBe(openIndex);
      openIndex = null;
    }
  }
  expect(openIndex).toBeNull();
  expect(frames.at(-2)?.event).toBe('message_delta');
  expect(frames.at(-1)?.event).toBe('message_stop');
  return { blocks, messageDelta: frames.at(-2)!.data };
}

function translate(chunks: object[]): SseFrame[] {
  const translator = fedChunks(
    createAnthropicStreamTranslator({
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'claude-sonnet-4-5',
      messageId: 'msg_test',
    }),
  );
  const frames = chunks.flatMap((chunk) => translator.push(chunk));
  return parseFrames([...frames, ...translator.finish()]);
}

const multiByteArguments = '{"path":"café/naïve 🚀.txt","note":"日本語 é 👩‍💻"}';

describe('createAnthropicStreamTranslator', () => {
  it.each(['reasoning_content', 'reasoning'] as const)('streams %s deltas as a thinking block before the text block', (field) => {
    const frames = translate([
      reasoningChunk('Let me ', field),
      reasoningChunk('think.', field),
      textChunk('Hi'),
      finishChunk('stop'),
      usageChunk(5, 2),
    ]);
    const starts = frames.filter((frame) => frame.event === 'content_block_start').map((frame) => frame.data['content_block']);
    expect(starts).toEqual([
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'text', text: '' },
    ]);
    const thinking = frames
      .filter((frame) => frame.event === 'content_block_delta' && frame.data['index'] === 0)
      .map((frame) => frame.data['delta']);
    // Marked with the field it came in (returnedReasoning.ts: only reasoning_content goes back), as Anthropic signs: last.
    expect(thinking).toEqual([
      { type: 'thinking_delta', thinking: 'Let me ' },
      { type: 'thinking_delta', thinking: 'think.' },
      { type: 'signature_delta', signature: `airlock:${field}:gw` },
    ]);
  });

  it('streams text as one text block and ends with stop_reason and usage from the late usage chunk', () => {
    const frames = translate([textChunk('Hel'), textChunk('lo'), finishChunk('stop'), usageChunk(12, 3)]);
    const start = frames[0]!.data['message'] as Record<string, unknown>;
    expect(start).toMatchObject({ id: 'msg_test', model: 'claude-sonnet-4-5', role: 'assistant', content: [], usage: { input_tokens: 0 } });
    const { blocks, messageDelta } = rebuildMessage(frames);
    expect(blocks).toEqual([{ type: 'text', text: 'Hello', partialJson: '', id: undefined, name: undefined }]);
    expect(messageDelta).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 12, output_tokens: 3 },
    });
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['content_filter', 'refusal'],
  ])('maps finish_reason %s to stop_reason %s', (finishReason, stopReason) => {
    const frames = translate([textChunk('x'), finishChunk(finishReason)]);
    expect(rebuildMessage(frames).messageDelta['delta']).toEqual({ stop_reason: stopReason, stop_sequence: null });
  });

  it('reports cached prompt tokens apart from input_tokens, as Anthropic counts them', () => {
    const frames = translate([textChunk('x'), finishChunk('stop'), usageChunk(100, 5, 60)]);
    expect(rebuildMessage(frames).messageDelta['usage']).toEqual({ input_tokens: 40, output_tokens: 5, cache_read_input_tokens: 60 });
  });

  it('reports prompt-cache writes apart from input_tokens, as Anthropic counts them', () => {
    const usage = { prompt_tokens: 200, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 100 } };
    const frames = translate([textChunk('x'), finishChunk('stop'), { id: 'chatcmpl-1', choices: [], usage }]);
    expect(rebuildMessage(frames).messageDelta['usage']).toEqual({
      input_tokens: 40,
      output_tokens: 5,
      cache_read_input_tokens: 60,
      cache_creation_input_tokens: 100,
    });
  });

  it('streams text, then a tool call whose partial_json pieces are the upstream pieces unchanged', () => {
    const pieces = ['{"ci', 'ty":', ' "Par', 'is"}'];
    const chunks = [
      textChunk('Checking.'),
      toolChunk({ index: 0, id: 'call_1', name: 'get_weather', arguments: '' }),
      ...pieces.map((piece) => toolChunk({ index: 0, arguments: piece })),
      finishChunk('tool_calls'),
    ];
    const frames = translate(chunks);
    const { blocks, messageDelta } = rebuildMessage(frames);
    expect(blocks.map((block) => block.type)).toEqual(['text', 'tool_use']);
    expect(blocks[1]).toMatchObject({ id: 'call_1', name: 'get_weather', partialJson: pieces.join('') });
    const sent = frames.filter((f) => f.event === 'content_block_delta' && f.data['index'] === 1);
    expect(sent.map((f) => (f.data['delta'] as Record<string, string>)['partial_json'])).toEqual(pieces);
    expect(messageDelta['delta']).toMatchObject({ stop_reason: 'tool_use' });
    expect(frames.find((f) => f.event === 'content_block_start' && f.data['index'] === 1)?.data['content_block']).toEqual({
      type: 'tool_use',
      id: 'call_1',
      name: 'get_weather',
      input: {},
    });
  });

  it.each(Array.from({ length: multiByteArguments.length + 1 }, (_, cut) => cut))(
    'multi-byte arguments cut at code unit %i concatenate back exactly',
    (cut) => {
      const pieces = [multiByteArguments.slice(0, cut), multiByteArguments.slice(cut)];
      const chunks = [
        toolChunk({ index: 0, id: 'call_u', name: 'write' }),
        ...pieces.map((p) => toolChunk({ index: 0, arguments: p })),
        finishChunk('tool_calls'),
      ];
      const { blocks } = rebuildMessage(translate(chunks));
      expect(blocks[0]!.partialJson).toBe(multiByteArguments);
      expect(JSON.parse(blocks[0]!.partialJson)).toEqual(JSON.parse(multiByteArguments));
    },
  );

  it('keeps every one-character piece of multi-byte arguments as its own delta', () => {
    const pieces = characterPieces(multiByteArguments);
    const chunks = [
      toolChunk({ index: 0, id: 'call_c', name: 'write' }),
      ...pieces.map((p) => toolChunk({ index: 0, arguments: p })),
      finishChunk('tool_calls'),
    ];
    const frames = translate(chunks);
    const deltas = frames.filter((f) => f.event === 'content_block_delta');
    expect(deltas.map((f) => (f.data['delta'] as Record<string, string>)['partial_json'])).toEqual(pieces);
  });

  it('serialises interleaved tool calls into consecutive blocks, each with its own arguments in order', () => {
    const argsA = '{"a":"é1"}';
    const argsB = '{"b":"🚀2"}';
    const argsC = '{}';
    const interleaved: ToolPiece[][] = [
      [
        { index: 0, id: 'call_a', name: 'tool_a' },
        { index: 1, id: 'call_b', name: 'tool_b' },
      ],
      [{ index: 1, arguments: argsB.slice(0, 4) }],
      [
        { index: 0, arguments: argsA.slice(0, 3) },
        { index: 1, arguments: argsB.slice(4) },
      ],
      [{ index: 2, id: 'call_c', name: 'tool_c', arguments: argsC }],
      [{ index: 0, arguments: argsA.slice(3) }],
    ];
    const frames = translate([...interleaved.map((pieces) => toolChunk(...pieces)), finishChunk('tool_calls'), usageChunk(9, 9)]);
    const { blocks } = rebuildMessage(frames);
    expect(blocks.map(({ id, name, partialJson }) => ({ id, name, partialJson }))).toEqual([
      { id: 'call_a', name: 'tool_a', partialJson: argsA },
      { id: 'call_b', name: 'tool_b', partialJson: argsB },
      { id: 'call_c', name: 'tool_c', partialJson: argsC },
    ]);
  });

  it('streams the first tool call live, before the upstream has finished, from its first arguments on: its name is whole by then', () => {
    const translator = fedChunks(
      createAnthropicStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm', messageId: 'msg_live' }),
    );
    // A name may come in pieces (toolCallName.ts): the block waits for the call's arguments.
    const beforeArguments = parseFrames(translator.push(toolChunk({ index: 0, id: 'call_1', name: 'read' })));
    expect(beforeArguments.map((frame) => frame.event)).toEqual(['message_start']);
    const frames = parseFrames(translator.push(toolChunk({ index: 0, arguments: '{"x"' })));
    expect(frames).toEqual([
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'call_1', name: 'read', input: {} } },
      },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"x"' } },
      },
    ]);
  });

  it('waits for a tool name that arrives after the first piece, and names calls without an id', () => {
    const chunks = [
      toolChunk({ index: 0, arguments: '{"q":' }),
      toolChunk({ index: 0, name: 'search', arguments: '1}' }),
      finishChunk('tool_calls'),
    ];
    const { blocks } = rebuildMessage(translate(chunks));
    expect(blocks[0]).toMatchObject({ name: 'search', id: 'toolu_msg_test_0', partialJson: '{"q":1}' });
  });

  it('keeps calls apart when an upstream numbers every call index 0 but gives each its own id', () => {
    const chunks = [
      toolChunk({ index: 0, id: 'call_1', name: 'read', arguments: '{"p":' }),
      toolChunk({ index: 0, arguments: '1}' }),
      toolChunk({ index: 0, id: 'call_2', name: 'read', arguments: '{"p":2}' }),
      finishChunk('tool_calls'),
    ];
    const { blocks } = rebuildMessage(translate(chunks));
    expect(blocks.map(({ id, partialJson }) => ({ id, partialJson }))).toEqual([
      { id: 'call_1', partialJson: '{"p":1}' },
      { id: 'call_2', partialJson: '{"p":2}' },
    ]);
  });

  it('continues a call whose later pieces carry an empty id, as DashScope (Qwen) sends them', () => {
    const chunks = [
      toolChunk({ index: 0, id: 'call_1', name: 'Bash', arguments: '' }),
      toolChunk({ index: 0, id: '', arguments: '{"command":' }),
      toolChunk({ index: 0, id: '', arguments: '"ls"}' }),
      finishChunk('tool_calls'),
    ];
    const { blocks } = rebuildMessage(translate(chunks));
    expect(blocks.map(({ id, name, partialJson }) => ({ id, name, partialJson }))).toEqual([
      { id: 'call_1', name: 'Bash', partialJson: '{"command":"ls"}' },
    ]);
  });

  // Anthropic has no refusal block: a model that declines says so in text (its stop_reason "refusal" is a classifier's stop).
  it('streams a refusal as the text the Anthropic client shows', () => {
    const frames = translate([refusalChunk("I can't "), refusalChunk('help with that.'), finishChunk('stop')]);
    const { blocks, messageDelta } = rebuildMessage(frames);
    expect(blocks).toEqual([expect.objectContaining({ type: 'text', text: "I can't help with that." })]);
    expect(messageDelta['delta']).toMatchObject({ stop_reason: 'end_turn' });
  });

  it("reports the stop sequence vLLM names in the finishing chunk's stop_reason", () => {
    const finish = { id: 'chatcmpl-1', choices: [{ index: 0, delta: {}, finish_reason: 'stop', stop_reason: '###' }] };
    const frames = translate([textChunk('a'), finish, usageChunk(3, 1)]);
    expect(rebuildMessage(frames).messageDelta['delta']).toEqual({ stop_reason: 'stop_sequence', stop_sequence: '###' });
  });

  it('turns a stop finish with tool calls into tool_use', () => {
    const frames = translate([toolChunk({ index: 0, id: 'c', name: 'n', arguments: '{}' }), finishChunk('stop')]);
    expect(rebuildMessage(frames).messageDelta['delta']).toMatchObject({ stop_reason: 'tool_use' });
  });
});

describe('createAnthropicStreamTranslator failures', () => {
  it('fail() after some text writes an error event and no message_stop, then stays silent', () => {
    const translator = fedChunks(
      createAnthropicStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm', messageId: 'msg_f' }),
    );
    const frames = parseFrames([
      ...translator.push(textChunk('partial')),
      ...translator.fail({ type: 'overloaded_error', message: 'upstream overloaded' }),
    ]);
    expect(frames.at(-1)).toEqual({
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error', message: 'upstream overloaded' } },
    });
    expect(frames.some((f) => f.event === 'message_stop' || f.event === 'message_delta')).toBe(false);
    expect([
      ...translator.push(textChunk('late')),
      ...translator.finish(),
      ...translator.fail({ type: 'api_error', message: 'x' }),
    ]).toEqual([]);
  });

  it('finish() without a finish_reason fails instead of completing', () => {
    const translator = fedChunks(
      createAnthropicStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm', messageId: 'msg_e' }),
    );
    translator.push(textChunk('cut off'));
    expect(parseFrames(translator.finish())).toEqual([
      { event: 'error', data: { type: 'error', error: { type: 'api_error', message: STREAM_ENDED_EARLY_MESSAGE } } },
    ]);
  });

  // Ollama (ollama#4357), sglang (sglang#3912) and Sensenova (axonhub#2073) send finish_reason "" on unfinished chunks.
  it('reads finish_reason "" as unfinished: a stream cut before its real finish fails', () => {
    const translator = fedChunks(
      createAnthropicStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm', messageId: 'msg_e' }),
    );
    translator.push(withFinishReason(textChunk('cut off'), ''));
    expect(parseFrames(translator.finish())).toEqual([
      { event: 'error', data: { type: 'error', error: { type: 'api_error', message: STREAM_ENDED_EARLY_MESSAGE } } },
    ]);
  });

  it('keeps the real finish when a later chunk carries finish_reason ""', () => {
    const frames = translate([withFinishReason(textChunk('long'), ''), finishChunk('length'), withFinishReason(usageChunk(3, 4), '')]);
    expect(rebuildMessage(frames).messageDelta['delta']).toMatchObject({ stop_reason: 'max_tokens' });
  });

  it.each([
    [{ error: { message: 'gateway exploded', type: 'server_error' } }, 'gateway exploded'],
    [{ choices: 'not-a-list' }, 'not a chat completion chunk'],
  ])('an upstream error chunk %j ends the stream with an error event', (chunk, expectedText) => {
    const translator = fedChunks(
      createAnthropicStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm', messageId: 'msg_x' }),
    );
    const frames = parseFrames(translator.push(chunk));
    expect(frames).toHaveLength(1);
    expect(frames[0]!.event).toBe('error');
    expect(JSON.stringify(frames[0]!.data)).toContain(expectedText);
    expect(translator.finish()).toEqual([]);
  });
});
