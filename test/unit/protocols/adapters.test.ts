import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../../proxy/contracts/usage.ts';
import type { EndpointKind, ObserverOptions, ProtocolAdapter } from '../../../proxy/protocols/adapter.ts';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { passthroughAdapter } from '../../../proxy/protocols/passthrough/adapter.ts';
import { adapterNamed, isChatCompletion, routeFor } from '../../../proxy/protocols/registry.ts';
import { responsesAdapter } from '../../../proxy/protocols/responses/adapter.ts';
import type { SseEvent } from '../../../proxy/protocols/sse.ts';

describe('routeFor: the registry maps a path to its protocol', () => {
  it.each<[string, string, ProtocolAdapter, EndpointKind]>([
    ['chat/completions', 'POST', chatAdapter, 'generate'],
    ['chat/completions', 'post', chatAdapter, 'generate'],
    ['chat/completions', 'GET', passthroughAdapter, 'other'],
    ['messages', 'POST', anthropicAdapter, 'generate'],
    ['messages/count_tokens', 'POST', anthropicAdapter, 'count'],
    ['responses', 'POST', responsesAdapter, 'generate'],
    ['embeddings', 'POST', passthroughAdapter, 'other'],
    ['images/generations', 'POST', passthroughAdapter, 'other'],
    ['models', 'GET', passthroughAdapter, 'other'],
    ['responses', 'GET', passthroughAdapter, 'other'],
  ])('%s %s', (path, method, adapter, endpoint) => {
    expect(routeFor(path, method)).toEqual({ adapter, endpoint });
  });

  it('tells a chat completion from the rest', () => {
    expect(
      [routeFor('chat/completions', 'POST'), routeFor('messages', 'POST'), routeFor('completions', 'POST')].map(isChatCompletion),
    ).toEqual([true, false, false]);
  });

  it('answers each client protocol with its own adapter', () => {
    expect([adapterNamed('openai'), adapterNamed('anthropic'), adapterNamed('responses')]).toEqual([
      chatAdapter,
      anthropicAdapter,
      responsesAdapter,
    ]);
  });
});

describe('readAnswer: each protocol reads the usage of its own JSON answers', () => {
  it.each<[string, ProtocolAdapter, EndpointKind, object, TokenUsage | null]>([
    ['chat', chatAdapter, 'generate', { usage: { prompt_tokens: 12, completion_tokens: 4 } }, { inputTokens: 12, outputTokens: 4 }],
    ['Messages', anthropicAdapter, 'generate', { usage: { input_tokens: 12, output_tokens: 4 } }, { inputTokens: 12, outputTokens: 4 }],
    [
      'Messages with cache reads and writes (counted apart by Anthropic, inside the input here)',
      anthropicAdapter,
      'generate',
      { usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 4 } },
      { inputTokens: 115, outputTokens: 4, cachedInputTokens: 100, cacheWriteInputTokens: 5 },
    ],
    [
      // The split by cache lifetime (docs: "cache_creation" with ephemeral_5m/1h_input_tokens): 1-hour writes cost more.
      'Messages with cache writes of both lifetimes',
      anthropicAdapter,
      'generate',
      {
        usage: {
          input_tokens: 10,
          cache_creation_input_tokens: 30,
          cache_creation: { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 20 },
          output_tokens: 4,
        },
      },
      { inputTokens: 40, outputTokens: 4, cacheWriteInputTokens: 30, cacheWrite1hInputTokens: 20 },
    ],
    [
      'Messages with only the split of cache writes',
      anthropicAdapter,
      'generate',
      { usage: { input_tokens: 10, cache_creation: { ephemeral_5m_input_tokens: 7, ephemeral_1h_input_tokens: 3 }, output_tokens: 4 } },
      { inputTokens: 20, outputTokens: 4, cacheWriteInputTokens: 10, cacheWrite1hInputTokens: 3 },
    ],
    ['Messages read as chat would find nothing', anthropicAdapter, 'generate', { usage: { prompt_tokens: 12 } }, null],
    ['count_tokens runs no model', anthropicAdapter, 'count', { input_tokens: 12 }, { inputTokens: 0, outputTokens: 0 }],
    [
      'Responses',
      responsesAdapter,
      'generate',
      {
        usage: {
          input_tokens: 12,
          input_tokens_details: { cached_tokens: 2 },
          output_tokens: 4,
          output_tokens_details: { reasoning_tokens: 1 },
        },
      },
      { inputTokens: 12, outputTokens: 4, cachedInputTokens: 2, reasoningTokens: 1 },
    ],
    [
      // OpenAI's Responses usage names cache writes (GPT-5.6 bills them at 1.25x input: coder/mux#3705, a live answer quoted).
      'Responses with cache writes',
      responsesAdapter,
      'generate',
      { usage: { input_tokens: 4000, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 3207 }, output_tokens: 4 } },
      { inputTokens: 4000, outputTokens: 4, cacheWriteInputTokens: 3207 },
    ],
    ['embeddings', passthroughAdapter, 'other', { usage: { prompt_tokens: 7, total_tokens: 7 } }, { inputTokens: 7, outputTokens: 0 }],
    [
      'images (gpt-image)',
      passthroughAdapter,
      'other',
      { usage: { input_tokens: 50, output_tokens: 4160 } },
      { inputTokens: 50, outputTokens: 4160 },
    ],
    ['no usage', passthroughAdapter, 'other', { data: [] }, null],
  ])('%s', (_name, adapter, endpoint, json, usage) => {
    expect(adapter.readAnswer(json, endpoint, {}).usage).toEqual(usage);
  });
});

/** Feeds events to a fresh observer; what it reported and whether it calls the answer whole. */
function observe(
  adapter: ProtocolAdapter,
  events: SseEvent[],
  options: ObserverOptions = { dropUsageOnlyChunks: false, usageAsked: true },
) {
  const usages: TokenUsage[] = [];
  const passed: boolean[] = [];
  const observer = adapter.stream.observer(
    { onDelta: () => undefined, onModel: () => undefined, onUsage: (usage) => usages.push(usage) },
    options,
  );
  for (const event of events) passed.push(observer.observe(event));
  return {
    complete: observer.complete,
    wholeAtCleanEnd: observer.wholeAtCleanEnd,
    usages,
    passed,
    error: observer.upstreamError?.message ?? null,
  };
}

const data = (json: object): SseEvent => ({ data: JSON.stringify(json) });
const named = (event: string, json: object): SseEvent => ({ event, data: JSON.stringify(json) });
const DONE: SseEvent = { data: '[DONE]' };
const text = (content: string, usage?: object) =>
  data({ choices: [{ index: 0, delta: { content }, finish_reason: null }], ...(usage ? { usage } : {}) });
const finish = (usage?: object) => data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], ...(usage ? { usage } : {}) });
const usageOnly = (completion: number) => data({ choices: [], usage: { prompt_tokens: 5, completion_tokens: completion } });
const running = (completion: number) => ({ prompt_tokens: 5, completion_tokens: completion });
/** LiteLLM's usage chunk: a choice with an empty delta instead of `choices: []` (BerriAI/litellm#28735). */
const usageWithEmptyChoice = (completion: number) =>
  data({ choices: [{ index: 0, delta: {}, finish_reason: null }], usage: { prompt_tokens: 5, completion_tokens: completion } });

describe('the chat observer: when a stream is whole, and which usage is final', () => {
  it.each<[string, SseEvent[], boolean, number[], Partial<ObserverOptions>?]>([
    ['[DONE] after finish and usage', [text('a'), finish(), usageOnly(2), DONE], true, [2]],
    ['no [DONE], finish then usage', [text('a'), finish(), usageOnly(2)], true, [2]],
    ['no [DONE], usage on the finish chunk', [text('a'), finish(running(2))], true, [2]],
    ['no [DONE], usage before the finish chunk', [text('a'), usageOnly(2), finish()], true, [2]],
    ['no [DONE], a running count on every chunk', [text('a', running(1)), text('b', running(2)), finish(running(3))], true, [3]],
    ['no [DONE], usage after the finish on a chunk with an empty choice', [text('a'), finish(), usageWithEmptyChoice(2)], true, [2]],
    ['cut before the finish chunk', [text('a'), text('b')], false, []],
    ['cut after the finish, before the usage asked for', [text('a'), finish()], false, []],
    ['finish without usage, when none was asked', [text('a'), finish()], true, [], { usageAsked: false }],
    ['a running count cut halfway is never reported', [text('a', running(1)), text('b', running(2))], false, []],
    ['[DONE] makes the last running count final', [text('a', running(1)), text('b', running(2)), DONE], true, [2]],
    [
      'two choices: whole only when both finished',
      [
        data({
          choices: [
            { index: 0, delta: { content: 'a' } },
            { index: 1, delta: { content: 'b' } },
          ],
        }),
        finish(),
        usageOnly(2),
      ],
      false,
      [2],
    ],
  ])('%s', (_name, events, complete, completions, options) => {
    const seen = observe(chatAdapter, events, { dropUsageOnlyChunks: false, usageAsked: true, ...options });
    expect(seen.complete).toBe(complete);
    expect(seen.usages.map((usage) => usage.outputTokens)).toEqual(completions);
  });

  it("takes the model from the first chunk that names one: Azure's first chunk has model '' and no choices", () => {
    // Azure OpenAI's prompt filter chunk: {"choices":[],"created":0,"id":"","model":"",...} (AbanteAI/mentat#429, Azure/azure-sdk-for-go#21086).
    const models: string[] = [];
    const observer = chatAdapter.stream.observer(
      { onDelta: () => undefined, onModel: (model) => models.push(model), onUsage: () => undefined },
      { dropUsageOnlyChunks: false, usageAsked: true },
    );
    const filterChunk = data({ id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [{ prompt_index: 0 }] });
    for (const event of [filterChunk, data({ model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'a' } }] }), DONE]) {
      observer.observe(event);
    }
    expect(models).toEqual(['gpt-4o-mini']);
  });

  it('keeps the usage-only chunk from a client that never asked for it', () => {
    expect(observe(chatAdapter, [text('a'), finish(), usageOnly(2)], { dropUsageOnlyChunks: true, usageAsked: true }).passed).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("keeps LiteLLM's usage chunk from a client that never asked for it: its last chunk would say no finish_reason", () => {
    const events = [text('a'), finish(), usageWithEmptyChoice(2), DONE];
    expect(observe(chatAdapter, events, { dropUsageOnlyChunks: true, usageAsked: true }).passed).toEqual([true, true, false, true]);
    expect(observe(chatAdapter, events, { dropUsageOnlyChunks: false, usageAsked: true }).passed).toEqual([true, true, true, true]);
  });

  it('passes a chunk after the finish that still carries text (a legacy completion): it is no usage chunk', () => {
    const late = data({ choices: [{ index: 0, text: 'x', finish_reason: null }], usage: running(2) });
    expect(observe(chatAdapter, [text('a'), finish(), late, DONE], { dropUsageOnlyChunks: true, usageAsked: true }).passed).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('passes a running count on a chunk before the finish: the chunk is no usage chunk, nor its count final', () => {
    const events = [text('a', running(1)), data({ choices: [{ index: 0, delta: {} }], usage: running(2) })];
    const seen = observe(chatAdapter, events, { dropUsageOnlyChunks: true, usageAsked: true });
    expect(seen).toMatchObject({ passed: [true, true], usages: [], complete: false });
  });
});

describe('the Messages and Responses observers: whole at their final event', () => {
  const messageStart = named('message_start', {
    type: 'message_start',
    message: { model: 'm', usage: { input_tokens: 12, output_tokens: 1 } },
  });
  const messageDelta = named('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } });
  const messageStop = named('message_stop', { type: 'message_stop' });
  const completed = named('response.completed', {
    type: 'response.completed',
    response: { model: 'm', usage: { input_tokens: 12, output_tokens: 4 } },
  });
  const failed = named('response.failed', { type: 'response.failed', response: { error: { message: 'model overloaded' } } });

  it.each<[string, ProtocolAdapter, SseEvent[], boolean, TokenUsage[], string | null]>([
    [
      'Messages to message_stop',
      anthropicAdapter,
      [messageStart, messageDelta, messageStop],
      true,
      [{ inputTokens: 12, outputTokens: 4 }],
      null,
    ],
    [
      'Messages cut before message_stop',
      anthropicAdapter,
      [messageStart, messageDelta],
      false,
      [{ inputTokens: 12, outputTokens: 4 }],
      null,
    ],
    [
      // message_delta's counts are cumulative (Messages streaming reference): a second one, as server tools send,
      // replaces the first, never adds to it (PostHog/posthog-python 7.75.4 fixed stacking them).
      'Messages with two message_delta events: the last is the total',
      anthropicAdapter,
      [
        messageStart,
        named('message_delta', { type: 'message_delta', delta: {}, usage: { output_tokens: 4 } }),
        named('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }),
        messageStop,
      ],
      true,
      [
        { inputTokens: 12, outputTokens: 4 },
        { inputTokens: 12, outputTokens: 9 },
      ],
      null,
    ],
    [
      // OpenRouter's Messages API writes every count message_delta does not carry as null (the
      // MessagesDeltaEvent example of its API schema); the Anthropic SDKs' MessageStream then keeps message_start's.
      'Messages whose message_delta names the counts it leaves out as null',
      anthropicAdapter,
      [
        named('message_start', {
          type: 'message_start',
          message: {
            model: 'm',
            usage: { input_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 1 },
          },
        }),
        named('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn' },
          usage: { input_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null, output_tokens: 4 },
        }),
        messageStop,
      ],
      true,
      [{ inputTokens: 117, outputTokens: 4, cachedInputTokens: 100, cacheWriteInputTokens: 5 }],
      null,
    ],
    ['Responses to response.completed', responsesAdapter, [completed], true, [{ inputTokens: 12, outputTokens: 4 }], null],
    ['Responses that failed', responsesAdapter, [failed], false, [], 'model overloaded'],
    ['Responses cut before its final event', responsesAdapter, [named('response.created', { type: 'response.created' })], false, [], null],
    ['a passed-through stream is never whole before its end', passthroughAdapter, [data({ x: 1 })], false, [], null],
  ])('%s', (_name, adapter, events, complete, usages, error) => {
    const seen = observe(adapter, events);
    expect(seen.complete).toBe(complete);
    expect(seen.usages).toEqual(usages);
    expect(seen.error).toBe(error);
  });

  it.each([
    ['chat', chatAdapter, false],
    ['Messages', anthropicAdapter, false],
    ['Responses', responsesAdapter, false],
    ['a passed-through stream', passthroughAdapter, true],
  ])('%s: a clean end alone makes the answer whole -> %s', (_name, adapter, whole) => {
    expect(observe(adapter, []).wholeAtCleanEnd).toBe(whole);
  });
});

describe("errors.streamFrame: a failure mid-stream in the client's protocol", () => {
  it.each<[ProtocolAdapter, string | undefined, Record<string, unknown>]>([
    [chatAdapter, undefined, { error: { type: 'stream_interrupted' } }],
    [anthropicAdapter, 'error', { type: 'error', error: { type: 'api_error' } }],
    [responsesAdapter, 'error', { type: 'error', code: 'stream_interrupted', error: { type: 'stream_interrupted' } }],
  ])('%#', (adapter, eventName, shape) => {
    const frame = adapter.errors.streamFrame('stream_interrupted', {});
    const eventLine = /^event: (.+)$/m.exec(frame)?.[1];
    expect(eventLine).toBe(eventName);
    expect(JSON.parse(/^data: (.+)$/m.exec(frame)![1]!)).toMatchObject(shape);
    expect(frame.endsWith('\n\n')).toBe(true);
  });
});
