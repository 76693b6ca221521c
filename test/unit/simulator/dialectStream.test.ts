import { describe, expect, it } from 'vitest';
import { planReply } from '../../simulator/chatReply.ts';
import type { ChatRequest } from '../../simulator/chatRequest.ts';
import { SEED_DIALECT, type StreamDialect, type UsagePlacement } from '../../simulator/dialect.ts';
import { DIALECTS } from '../../simulator/dialects.ts';
import { framingFor, planDialectStream, usageWithReasoning, withReasoning } from '../../simulator/dialectStream.ts';

const request: ChatRequest = {
  model: 'qwen-plus',
  stream: true,
  includeUsage: true,
  hasTools: false,
  forcedToolName: null,
  promptChars: 40,
  lastUserText: 'hi',
  stop: [],
};
const plan = planReply(request, { sequence: 'sim000001', createdS: 1_700_000_000 }, { kind: 'reply', content: 'abcdef' });
const usage = plan.usage!;

interface Chunk {
  choices: Array<{ delta: Record<string, string>; finish_reason: string | null }>;
  usage?: { completion_tokens: number; total_tokens: number };
}
const streamWith = (overrides: Partial<StreamDialect>, includeUsage = true, reasoning: string | null = null) =>
  planDialectStream({ plan, reasoning }, 3, includeUsage, { ...SEED_DIALECT.stream, ...overrides });
const describeChunk = (chunk: object): string => {
  const typed = chunk as Chunk;
  const finish = typed.choices[0]?.finish_reason;
  return [typed.choices.length === 0 ? 'usage-only' : finish ? `finish:${finish}` : 'delta', typed.usage ? '+usage' : ''].join('');
};

describe('planDialectStream: where usage goes', () => {
  it.each<[UsagePlacement, string[]]>([
    ['afterFinish', ['finish:stop', 'usage-only+usage']],
    ['beforeFinish', ['usage-only+usage', 'finish:stop']],
    ['inFinish', ['finish:stop+usage']],
    ['everyChunk', ['finish:stop+usage']],
    ['afterFinishWithChoice', ['finish:stop', 'delta+usage']],
  ])('%s', (usagePlacement, tail) => {
    const stream = streamWith({ usagePlacement });
    expect(stream.tail.map(describeChunk)).toEqual(tail);
    const reported = [...stream.tail].reverse().find((chunk) => (chunk as Chunk).usage !== undefined) as Chunk;
    expect(reported.usage).toEqual(usage);
  });

  it('counts usage up on every chunk when the dialect reports it on each', () => {
    const stream = streamWith({ usagePlacement: 'everyChunk' });
    const counts = [stream.head, ...stream.deltas, ...stream.tail].map((chunk) => (chunk as Chunk).usage?.completion_tokens);
    expect(counts.every((count) => typeof count === 'number')).toBe(true);
    expect(counts).toEqual([...counts].sort((a, b) => a! - b!));
    expect(counts.at(-1)).toBe(usage.completion_tokens);
  });

  it('sends no usage unless asked, except in a dialect that always reports it', () => {
    expect(streamWith({}, false).tail.map(describeChunk)).toEqual(['finish:stop']);
    expect(streamWith({ usageWithoutAsking: true }, false).tail.map(describeChunk)).toEqual(['finish:stop', 'usage-only+usage']);
  });
});

describe('planDialectStream: reasoning', () => {
  it.each<StreamDialect['reasoningField']>(['reasoning_content', 'reasoning'])(
    'streams the thinking as %s deltas before the answer',
    (reasoningField) => {
      const stream = streamWith({ reasoningField }, false, 'step by step');
      const deltas = stream.deltas.map((chunk) => (chunk as Chunk).choices[0]!.delta);
      expect(
        deltas
          .slice(0, 3)
          .map((delta) => delta[reasoningField])
          .join(''),
      ).toBe('step by step');
      expect(
        deltas
          .slice(3)
          .map((delta) => delta.content)
          .join(''),
      ).toBe('abcdef');
    },
  );

  it('bills the thinking as completion tokens and puts it on the message', () => {
    expect(usageWithReasoning(usage, 'x'.repeat(40))).toEqual({
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens + 10,
      total_tokens: usage.total_tokens + 10,
      reasoningTokens: 10,
    });
    expect(usageWithReasoning(usage, null)).toBe(usage);
    const body = withReasoning({ choices: [{ message: { role: 'assistant', content: 'a' } }] }, 'why', 'reasoning_content');
    expect(body).toEqual({ choices: [{ message: { role: 'assistant', content: 'a', reasoning_content: 'why' } }] });
  });
});

describe('framingFor', () => {
  it('frames the seed exactly as before: data lines only, no comment', () => {
    const framing = framingFor(SEED_DIALECT.stream, { error: { message: 'x' } });
    expect(framing.event({ a: 1 })).toBe('data: {"a":1}\n\n');
    expect(framing.event('[DONE]')).toBe('data: [DONE]\n\n');
    expect(framing.comment).toBeNull();
    expect(framing.errorEvent).toBe('data: {"error":{"message":"x"}}\n\n');
  });

  it('names events and sends keep-alive comments where the dialect does', () => {
    const framing = framingFor({ ...SEED_DIALECT.stream, eventNames: true, keepAliveComment: ': keep-alive' }, { error: 'x' });
    expect(framing.event({ a: 1 })).toBe('event: message\ndata: {"a":1}\n\n');
    expect(framing.errorEvent).toBe('event: error\ndata: {"error":"x"}\n\n');
    expect(framing.comment).toBe(': keep-alive\n\n');
    expect(framingFor(DIALECTS['new-api'].stream, {}).comment).toBe(': PING\n\n');
    expect(framingFor(DIALECTS.openrouter.stream, {}).comment).toBe(': OPENROUTER PROCESSING\n\n');
  });
});
