import { describe, expect, it } from 'vitest';
import { completionBody, estimateTokens, planReply, planStream, splitBySizes, splitText } from '../../simulator/chatReply.ts';
import type { ChatRequest } from '../../simulator/chatRequest.ts';

const request: ChatRequest = {
  model: 'qwen-plus',
  stream: false,
  includeUsage: false,
  hasTools: true,
  forcedToolName: null,
  promptChars: 10,
  lastUserText: 'hello',
  stop: [],
};
const identity = { sequence: 'sim000007', createdS: 1_700_000_000 };

describe('estimateTokens', () => {
  it.each([
    [0, 1],
    [1, 1],
    [4, 1],
    [5, 2],
    [400, 100],
  ])('%i chars -> %i tokens', (chars, tokens) => {
    expect(estimateTokens(chars)).toBe(tokens);
  });
});

describe('splitText', () => {
  it.each([
    ['abcdefgh', 4, ['ab', 'cd', 'ef', 'gh']],
    ['abc', 4, ['a', 'b', 'c']],
    ['abcde', 2, ['ab', 'cde']],
    ['', 3, ['']],
    ['😀😀', 2, ['😀', '😀']],
  ])('%j into %i', (text, count, pieces) => {
    expect(splitText(text, count)).toEqual(pieces);
  });
});

describe('planReply', () => {
  it('echoes the last user text and counts usage from lengths', () => {
    const plan = planReply(request, identity);
    expect(plan).toMatchObject({
      id: 'chatcmpl-sim000007',
      model: 'qwen-plus',
      content: 'Simulated reply to: hello',
      finishReason: 'stop',
    });
    expect(plan.usage).toEqual({ prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 });
  });

  it('follows a scripted reply: content, rewritten model, no usage', () => {
    const plan = planReply(request, identity, { kind: 'reply', content: 'fixed', model: 'gpt-4o', usage: false });
    expect(plan).toMatchObject({ content: 'fixed', model: 'gpt-4o', usage: null });
    expect(completionBody(plan)).not.toHaveProperty('usage');
  });

  // OpenAI's `stop`: generation stops before the sequence, which is not returned.
  it('ends the reply before the first stop sequence found, which the plan names', () => {
    const plan = planReply({ ...request, stop: ['##', '|'] }, identity, { kind: 'reply', content: 'a|b##c' });
    expect(plan).toMatchObject({ content: 'a', finishReason: 'stop', matchedStop: '|' });
    expect(completionBody(plan)).toMatchObject({ choices: [{ message: { content: 'a' }, finish_reason: 'stop', stop_reason: '|' }] });
    expect(planReply(request, identity, { kind: 'reply', content: 'a|b' })).toMatchObject({ content: 'a|b', matchedStop: null });
  });

  it('calls tools only when the request offered tools', () => {
    const reply = { kind: 'reply' as const, toolCalls: [{ name: 'read_file', arguments: '{"path":"a"}' }] };
    const withTools = planReply(request, identity, reply);
    expect(withTools).toMatchObject({
      content: null,
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_sim000007_0', name: 'read_file' }],
    });
    expect(completionBody(withTools)).toMatchObject({
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_sim000007_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
    const withoutTools = planReply({ ...request, hasTools: false }, identity, reply);
    expect(withoutTools).toMatchObject({ content: 'Simulated reply to: hello', toolCalls: [], finishReason: 'stop' });
  });
});

describe('planStream', () => {
  it('has a role chunk, content deltas, a finish chunk and a usage chunk only when asked', () => {
    const plan = planReply(request, identity, { kind: 'reply', content: 'abcdef' });
    const withUsage = planStream(plan, 3, true);
    expect(withUsage.head).toMatchObject({ object: 'chat.completion.chunk', choices: [{ delta: { role: 'assistant' } }] });
    expect(withUsage.deltas.map((chunk) => (chunk as { choices: [{ delta: { content: string } }] }).choices[0].delta.content)).toEqual([
      'ab',
      'cd',
      'ef',
    ]);
    expect(withUsage.tail).toEqual([
      expect.objectContaining({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      expect.objectContaining({ choices: [], usage: plan.usage }),
    ]);
    expect(planStream(plan, 3, false).tail).toHaveLength(1);
  });

  it('streams tool calls as a header delta then argument pieces', () => {
    const plan = planReply(request, identity, {
      kind: 'reply',
      toolCalls: [
        { name: 'a', arguments: '{"x":1}' },
        { name: 'b', arguments: '{}' },
      ],
    });
    const stream = planStream(plan, 2, false);
    const toolDeltas = stream.deltas.map(
      (chunk) => (chunk as { choices: [{ delta: { tool_calls: unknown[] } }] }).choices[0].delta.tool_calls[0],
    );
    expect(toolDeltas).toEqual([
      { index: 0, id: 'call_sim000007_0', type: 'function', function: { name: 'a', arguments: '' } },
      { index: 0, function: { arguments: '{"x' } },
      { index: 0, function: { arguments: '":1}' } },
      { index: 1, id: 'call_sim000007_1', type: 'function', function: { name: 'b', arguments: '' } },
      { index: 1, function: { arguments: '{' } },
      { index: 1, function: { arguments: '}' } },
    ]);
    expect(stream.tail[0]).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] });
  });
});

describe("a dialect's streamed tool call names", () => {
  const toolDeltasOf = (names: 'inPieces' | 'everyDelta'): unknown[] => {
    const plan = planReply(request, identity, { kind: 'reply', toolCalls: [{ name: 'read_file', arguments: '{"x":1}' }] });
    return planStream(plan, 2, false, undefined, names).deltas.map(
      (chunk) => (chunk as { choices: [{ delta: { tool_calls: unknown[] } }] }).choices[0].delta.tool_calls[0],
    );
  };

  it('cut in two over the first two deltas (Gemini)', () => {
    expect(toolDeltasOf('inPieces')).toEqual([
      { index: 0, id: 'call_sim000007_0', type: 'function', function: { name: 'read', arguments: '' } },
      { index: 0, function: { name: '_file' } },
      { index: 0, function: { arguments: '{"x' } },
      { index: 0, function: { arguments: '":1}' } },
    ]);
  });

  it('whole again on every argument delta (MiniMax through NIM)', () => {
    expect(toolDeltasOf('everyDelta')).toEqual([
      { index: 0, id: 'call_sim000007_0', type: 'function', function: { name: 'read_file', arguments: '' } },
      { index: 0, function: { name: 'read_file', arguments: '{"x' } },
      { index: 0, function: { name: 'read_file', arguments: '":1}' } },
    ]);
  });
});

describe('a forced tool choice', () => {
  it('calls the forced tool when nothing is scripted, as a model must', () => {
    const plan = planReply({ ...request, forcedToolName: 'get_time' }, identity);
    expect(plan.toolCalls.map((call) => call.name)).toEqual(['get_time']);
    expect(plan.finishReason).toBe('tool_calls');
  });
});

describe('splitBySizes', () => {
  it.each([
    ['abcdefg', [2, 3], ['ab', 'cde', 'fg']],
    ['abc', [5], ['abc']],
    ['😀😀😀', [2], ['😀😀', '😀']],
    ['', [2], []],
  ])('%j by %j', (text, sizes, pieces) => {
    expect(splitBySizes(text, sizes)).toEqual(pieces);
  });

  it('sizes the content deltas of a stream when given', () => {
    const plan = planReply(request, identity, { kind: 'reply', content: 'abcdefg' });
    const contents = planStream(plan, 4, false, [2, 3]).deltas.map(
      (chunk) => (chunk as { choices: [{ delta: { content: string } }] }).choices[0].delta.content,
    );
    expect(contents).toEqual(['ab', 'cde', 'fg']);
  });
});
