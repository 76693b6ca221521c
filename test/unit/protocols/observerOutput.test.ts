import { describe, expect, it } from 'vitest';
import type { ProtocolAdapter } from '../../../proxy/protocols/adapter.ts';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { responsesAdapter } from '../../../proxy/protocols/responses/adapter.ts';
import type { SseEvent } from '../../../proxy/protocols/sse.ts';

const data = (json: object): SseEvent => ({ data: JSON.stringify(json) });
const named = (event: string, json: object): SseEvent => ({ event, data: JSON.stringify(json) });
const text = (content: string): SseEvent => data({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

describe('the observers: output besides the answer text, for a usage estimate', () => {
  it.each<[string, ProtocolAdapter, SseEvent[], string[]]>([
    [
      'chat: reasoning and a tool call streamed in pieces',
      chatAdapter,
      [
        data({ choices: [{ index: 0, delta: { reasoning_content: 'think' } }] }),
        data({ choices: [{ index: 0, delta: { reasoning: 'more' } }] }),
        data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'write', arguments: '{"a"' } }] } }] }),
        data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] } }] }),
        text('shown'),
      ],
      ['think', 'more', 'write{"a"', ':1}'],
    ],
    [
      // dialects.ts: MiniMax through NIM sends a call's name on every delta; some gateways number every call 0, each with its own id.
      'chat: a name sent again on every delta counted once, a new id at the same index a new call',
      chatAdapter,
      [
        data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: 'read', arguments: '{"a"' } }] } }] }),
        data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'read', arguments: ':1}' } }] } }] }),
        data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c2', function: { name: 'read', arguments: '{}' } }] } }] }),
        text('shown'),
      ],
      ['read{"a"', ':1}', 'read{}'],
    ],
    [
      'Messages: thinking and a tool input',
      anthropicAdapter,
      [
        named('content_block_delta', { type: 'content_block_delta', delta: { type: 'thinking_delta', thinking: 'think' } }),
        named('content_block_delta', { type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '{"a":1}' } }),
        named('content_block_delta', { type: 'content_block_delta', delta: { type: 'text_delta', text: 'shown' } }),
      ],
      ['think', '{"a":1}'],
    ],
    [
      'Responses: reasoning and function call arguments',
      responsesAdapter,
      [
        named('response.reasoning_summary_text.delta', { type: 'response.reasoning_summary_text.delta', delta: 'think' }),
        named('response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', delta: '{"a":1}' }),
        named('response.output_text.delta', { type: 'response.output_text.delta', delta: 'shown' }),
      ],
      ['think', '{"a":1}'],
    ],
    [
      'Messages: a tool call, its name in its start',
      anthropicAdapter,
      [
        named('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 't1', name: 'read_file', input: {} },
        }),
        named('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"a":1}' },
        }),
        named('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'shown' } }),
      ],
      ['read_file', '{"a":1}'],
    ],
    [
      'Responses: a function call, its name in its item',
      responsesAdapter,
      [
        named('response.output_item.added', {
          type: 'response.output_item.added',
          item: { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'read_file', arguments: '' },
        }),
        named('response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', delta: '{"a":1}' }),
        named('response.output_text.delta', { type: 'response.output_text.delta', delta: 'shown' }),
      ],
      ['read_file', '{"a":1}'],
    ],
    [
      // Codex's apply_patch on gpt-5.5 and later, from a gateway speaking Responses natively.
      'Responses: a custom tool call input',
      responsesAdapter,
      [
        named('response.custom_tool_call_input.delta', { type: 'response.custom_tool_call_input.delta', delta: '*** Begin Patch' }),
        named('response.output_text.delta', { type: 'response.output_text.delta', delta: 'shown' }),
      ],
      ['*** Begin Patch'],
    ],
  ])('%s', (_name, adapter, events, other) => {
    const seen = { deltas: [] as string[], other: [] as string[] };
    const observer = adapter.stream.observer(
      {
        onDelta: (delta) => seen.deltas.push(delta),
        onOtherOutput: (written) => seen.other.push(written),
        // Messages thinking is other output reported by its block, for its signature.
        onThinking: (_blockIndex, written) => seen.other.push(written),
        onModel: () => undefined,
        onUsage: () => undefined,
      },
      { dropUsageOnlyChunks: false, usageAsked: false },
    );
    for (const event of events) observer.observe(event);
    expect(seen).toEqual({ deltas: ['shown'], other });
  });
});

describe("the chat observer's reader of a relay's thinking blocks", () => {
  it('reads signed thinking when a relay sends it, and is made only then', () => {
    const thinking: string[] = [];
    const observer = chatAdapter.stream.observer(
      {
        onDelta: () => undefined,
        onThinking: (_blockIndex, written) => thinking.push(written),
        onModel: () => undefined,
        onUsage: () => undefined,
      },
      { dropUsageOnlyChunks: false, usageAsked: false },
    );
    observer.observe(text('plain'));
    // Most chat streams carry no relay thinking: its reader and the four callbacks it is given were 0.5 KB of each open stream.
    expect(Reflect.get(observer, 'relayThinking')).toBeNull();
    const block = { type: 'thinking', thinking: 'Look first.', signature: null };
    observer.observe(data({ choices: [{ index: 0, delta: { thinking_blocks: [block] } }] }));
    expect(thinking).toEqual(['Look first.']);
  });
});

describe('the Responses observer on arguments nested past the stack', () => {
  it('goes on to the usage after a tool_search_call whose arguments JSON.stringify cannot write', () => {
    // Written out by hand: JSON.stringify cannot write it either.
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const usages: unknown[] = [];
    const observer = responsesAdapter.stream.observer(
      { onDelta: () => undefined, onModel: () => undefined, onUsage: (usage) => usages.push(usage), onOtherOutput: () => undefined },
      { dropUsageOnlyChunks: false, usageAsked: true },
    );
    const item = `{"type":"tool_search_call","id":"ts_1","call_id":"c1","arguments":${deep}}`;
    const data = `{"type":"response.output_item.done","output_index":0,"item":${item}}`;
    expect(() => observer.observe({ event: 'response.output_item.done', data })).not.toThrow();
    const usage = { input_tokens: 3, output_tokens: 2, total_tokens: 5 };
    observer.observe(named('response.completed', { type: 'response.completed', response: { model: 'm', usage } }));
    expect(usages).toHaveLength(1);
  });
});
