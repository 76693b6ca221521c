import { describe, expect, it } from 'vitest';
import { createResponsesStreamTranslator } from '../../../proxy/protocols/responses/stream.ts';
import { completionAsChunk, readChatChunk } from '../../../proxy/protocols/chat/chatShapes.ts';
import { STREAM_ENDED_EARLY_MESSAGE } from '../../../proxy/protocols/streamTranslator.ts';
import {
  characterPieces,
  fedChunks,
  finishChunk,
  parseFrames,
  reasoningChunk,
  refusalChunk,
  splitsAtEveryCharacter,
  textChunk,
  toolChunk,
  usageChunk,
} from './chatChunks.ts';
import type { SseFrame } from './chatChunks.ts';

const options = {
  gatewayTag: 'gw',
  upstreamModel: 'gw-model',
  requestedModel: 'gpt-codex',
  responseId: 'resp_abc',
  createdAtSec: 1_700_000_000,
};

function translate(chunks: object[]): SseFrame[] {
  const translator = fedChunks(createResponsesStreamTranslator(options));
  return parseFrames([...chunks.flatMap((chunk) => translator.push(chunk)), ...translator.finish()]);
}

function data(frames: SseFrame[], event: string): Record<string, unknown>[] {
  return frames.filter((frame) => frame.event === event).map((frame) => frame.data);
}

describe('createResponsesStreamTranslator', () => {
  it('streams thinking as the summary of a reasoning item, before the message item', () => {
    const frames = translate([reasoningChunk('Hmm'), textChunk('Hi'), finishChunk('stop'), usageChunk(5, 2)]);
    expect(frames.map((frame) => frame.event).slice(2, 8)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const completed = data(frames, 'response.completed')[0]!['response'] as { output: Record<string, unknown>[] };
    expect(completed.output.map((item) => item['type'])).toEqual(['reasoning', 'message']);
    expect(completed.output[0]).toMatchObject({ id: 'rs_abc_0', summary: [{ type: 'summary_text', text: 'Hmm' }] });
  });

  it('emits the Codex text sequence with rising sequence numbers and usage on response.completed', () => {
    const frames = translate([textChunk('Hi'), textChunk(' there'), finishChunk('stop'), usageChunk(20, 4, 8)]);
    expect(frames.map((frame) => frame.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(frames.map((frame) => frame.data['sequence_number'])).toEqual(frames.map((_, index) => index));
    expect(data(frames, 'response.created')[0]!['response']).toMatchObject({
      id: 'resp_abc',
      status: 'in_progress',
      output: [],
      model: 'gpt-codex',
    });
    expect(data(frames, 'response.output_text.done')[0]).toMatchObject({ item_id: 'msg_abc_0', text: 'Hi there', output_index: 0 });
    const completed = data(frames, 'response.completed')[0]!['response'] as Record<string, unknown>;
    expect(completed).toMatchObject({
      status: 'completed',
      output: [
        { id: 'msg_abc_0', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi there' }] },
      ],
      usage: { input_tokens: 20, input_tokens_details: { cached_tokens: 8 }, output_tokens: 4, total_tokens: 24 },
    });
  });

  it('streams a refusal as a refusal content part, with the refusal events OpenAI sends', () => {
    const frames = translate([refusalChunk("I can't "), refusalChunk('help with that.'), finishChunk('stop')]);
    expect(frames.map((frame) => frame.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const part = { item_id: 'msg_abc_0', output_index: 0, content_index: 0 };
    expect(data(frames, 'response.content_part.added')[0]).toMatchObject({ ...part, part: { type: 'refusal', refusal: '' } });
    expect(data(frames, 'response.refusal.delta').map((event) => event['delta'])).toEqual(["I can't ", 'help with that.']);
    expect(data(frames, 'response.refusal.done')[0]).toMatchObject({ ...part, refusal: "I can't help with that." });
    const refusal = { type: 'refusal', refusal: "I can't help with that." };
    expect(data(frames, 'response.content_part.done')[0]).toMatchObject({ ...part, part: refusal });
    expect(data(frames, 'response.completed')[0]!['response']).toMatchObject({
      status: 'completed',
      output: [{ id: 'msg_abc_0', type: 'message', role: 'assistant', status: 'completed', content: [refusal] }],
    });
  });

  it('keeps the refusal of a whole answer turned into a stream (a gateway that ignored stream: true)', () => {
    const whole = { choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'No.' }, finish_reason: 'stop' }] };
    const translator = createResponsesStreamTranslator(options);
    const chunk = completionAsChunk(whole) as Record<string, unknown>;
    const frames = parseFrames([...translator.push(readChatChunk(chunk)), ...translator.finish()]);
    expect(data(frames, 'response.refusal.done')[0]).toMatchObject({ refusal: 'No.' });
  });

  it('streams function calls with argument deltas exactly as received and a done event with the whole arguments', () => {
    const argsA = '{"command":["ls","-la"],"workdir":"/tmp/café"}';
    const argsB = '{"plan":"🚀 déployer"}';
    const chunks = [
      textChunk('Running.'),
      toolChunk({ index: 0, id: 'call_a', name: 'shell' }),
      ...characterPieces(argsA).map((piece) => toolChunk({ index: 0, arguments: piece })),
      toolChunk({ index: 1, id: 'call_b', name: 'update_plan', arguments: argsB.slice(0, 5) }),
      toolChunk({ index: 1, arguments: argsB.slice(5) }),
      finishChunk('tool_calls'),
    ];
    const frames = translate(chunks);
    const added = data(frames, 'response.output_item.added').map((event) => event['item']);
    expect(added).toEqual([
      { id: 'msg_abc_0', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      { id: 'fc_abc_1', type: 'function_call', status: 'in_progress', call_id: 'call_a', name: 'shell', arguments: '' },
      { id: 'fc_abc_2', type: 'function_call', status: 'in_progress', call_id: 'call_b', name: 'update_plan', arguments: '' },
    ]);
    const deltas = data(frames, 'response.function_call_arguments.delta');
    expect(deltas.filter((d) => d['item_id'] === 'fc_abc_1').map((d) => d['delta'])).toEqual(characterPieces(argsA));
    expect(
      deltas
        .filter((d) => d['item_id'] === 'fc_abc_2')
        .map((d) => d['delta'])
        .join(''),
    ).toBe(argsB);
    expect(data(frames, 'response.function_call_arguments.done')).toEqual([
      expect.objectContaining({ item_id: 'fc_abc_1', output_index: 1, name: 'shell', arguments: argsA }),
      expect.objectContaining({ item_id: 'fc_abc_2', output_index: 2, name: 'update_plan', arguments: argsB }),
    ]);
    const completed = data(frames, 'response.completed')[0]!['response'] as { output: Record<string, unknown>[] };
    expect(completed.output.map((item) => item['type'])).toEqual(['message', 'function_call', 'function_call']);
    expect(completed.output[2]).toMatchObject({ call_id: 'call_b', arguments: argsB, status: 'completed' });
  });

  const patchArgs = '{"input":"*** Update: naïve → café 🎉\\n"}';
  it.each(splitsAtEveryCharacter(patchArgs))('arguments split into %j + %j arrive whole in the done event and the item', (head, tail) => {
    const chunks = [
      toolChunk({ index: 0, id: 'call_p', name: 'apply_patch', arguments: head }),
      toolChunk({ index: 0, arguments: tail }),
      finishChunk('tool_calls'),
    ];
    const frames = translate(chunks);
    expect(
      data(frames, 'response.function_call_arguments.delta')
        .map((d) => d['delta'])
        .join(''),
    ).toBe(patchArgs);
    expect(data(frames, 'response.function_call_arguments.done')[0]).toMatchObject({ arguments: patchArgs });
    expect(data(frames, 'response.output_item.done')[0]!['item']).toMatchObject({ arguments: patchArgs });
    expect(JSON.parse(patchArgs)).toEqual({ input: '*** Update: naïve → café 🎉\n' });
  });

  it('closes each output item before the next one is added', () => {
    const frames = translate([
      toolChunk({ index: 0, id: 'a', name: 'x' }, { index: 1, id: 'b', name: 'y' }),
      toolChunk({ index: 1, arguments: '{"b":1}' }, { index: 0, arguments: '{"a":1}' }),
      finishChunk('tool_calls'),
    ]);
    const itemEvents = frames
      .filter((f) => f.event.startsWith('response.output_item.'))
      .map((f) => `${f.event}:${String(f.data['output_index'])}`);
    expect(itemEvents).toEqual([
      'response.output_item.added:0',
      'response.output_item.done:0',
      'response.output_item.added:1',
      'response.output_item.done:1',
    ]);
    expect(data(frames, 'response.function_call_arguments.done').map((d) => d['arguments'])).toEqual(['{"a":1}', '{"b":1}']);
  });

  it('reads an empty id and name on continuation deltas (DashScope, GLM) as absent: one call, its arguments whole', () => {
    const args = '{"cmd":"ls"}';
    // The continuation deltas as those gateways send them: `id: ""`, `name: ""`, the arguments piece.
    const continuation = (piece: string) => ({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: '', type: 'function', function: { name: '', arguments: piece } }] } }],
    });
    const frames = translate([
      toolChunk({ index: 0, id: 'call_q', name: 'exec_command', arguments: '' }),
      continuation(args.slice(0, 4)),
      continuation(args.slice(4)),
      finishChunk('tool_calls'),
    ]);
    const items = data(frames, 'response.output_item.done').map((event) => event['item']);
    expect(items).toEqual([expect.objectContaining({ type: 'function_call', call_id: 'call_q', name: 'exec_command', arguments: args })]);
  });

  it.each([
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ])('finish_reason %s ends with response.incomplete (%s), not response.completed', (finishReason, reason) => {
    const frames = translate([textChunk('trunc'), finishChunk(finishReason)]);
    expect(frames.at(-1)?.event).toBe('response.incomplete');
    expect(frames.at(-1)?.data['response']).toMatchObject({ status: 'incomplete', incomplete_details: { reason } });
    expect(frames.some((f) => f.event === 'response.completed')).toBe(false);
  });
});

describe('createResponsesStreamTranslator failures', () => {
  it('fail() mid-stream ends with response.failed carrying the error and the finished items only', () => {
    const translator = fedChunks(createResponsesStreamTranslator(options));
    const frames = parseFrames([
      ...translator.push(textChunk('one')),
      ...translator.push(toolChunk({ index: 0, id: 'c', name: 'shell', arguments: '{"comm' })),
      ...translator.fail({ type: 'server_error', message: 'stream interrupted' }),
    ]);
    const failed = frames.at(-1)!;
    expect(failed.event).toBe('response.failed');
    expect(failed.data['response']).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'stream interrupted' } });
    expect((failed.data['response'] as { output: unknown[] }).output).toHaveLength(1);
    expect(frames.some((f) => f.event === 'response.completed')).toBe(false);
    expect([...translator.push(textChunk('x')), ...translator.finish()]).toEqual([]);
  });

  it('finish() without a finish_reason fails', () => {
    const translator = fedChunks(createResponsesStreamTranslator(options));
    translator.push(textChunk('cut'));
    const frames = parseFrames(translator.finish());
    expect(frames.map((f) => f.event)).toEqual(['response.failed']);
    expect(frames[0]!.data['response']).toMatchObject({ status: 'failed', error: { message: STREAM_ENDED_EARLY_MESSAGE } });
  });

  it('fail() before any chunk still opens the response, then fails it', () => {
    const translator = fedChunks(createResponsesStreamTranslator(options));
    const frames = parseFrames(translator.fail({ type: 'rate_limit_exceeded', message: 'slow down' }));
    expect(frames.map((f) => f.event)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
  });

  it('an upstream error chunk fails the stream', () => {
    const translator = fedChunks(createResponsesStreamTranslator(options));
    const frames = parseFrames(translator.push({ error: { message: 'model busy' } }));
    expect(frames.at(-1)?.data['response']).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    expect(JSON.stringify(frames.at(-1)?.data)).toContain('model busy');
  });
});

describe('a tool call streamed in many pieces', () => {
  /** The request's tool names, counting each look-up of a name in them. */
  function countedNames(): { names: Record<string, never>; lookups: () => number } {
    let lookups = 0;
    const names = new Proxy<Record<string, never>>(
      {},
      {
        getOwnPropertyDescriptor(target, property) {
          lookups += 1;
          return Reflect.getOwnPropertyDescriptor(target, property);
        },
        has(target, property) {
          lookups += 1;
          return Reflect.has(target, property);
        },
      },
    );
    return { names, lookups: () => lookups };
  }

  // Codex's tool calls stream their arguments a few characters a piece: what the call is, is known at its start.
  it('looks its tool up a fixed number of times, not once or more a piece', () => {
    const lookupsFor = (pieces: number): number => {
      const { names, lookups } = countedNames();
      const translator = fedChunks(createResponsesStreamTranslator({ ...options, clientToolNames: names }));
      translator.push(toolChunk({ index: 0, id: 'call_1', name: 'exec_command', arguments: '' }));
      for (let piece = 0; piece < pieces; piece += 1) translator.push(toolChunk({ index: 0, arguments: 'x' }));
      translator.push(finishChunk('tool_calls'));
      translator.finish();
      return lookups();
    };
    expect(lookupsFor(100)).toBe(lookupsFor(1));
  });
});
