import { describe, expect, it } from 'vitest';
import { completionAsStream } from '../../../proxy/protocols/chat/completionAsStream.ts';
import { completionOfStream } from '../../../proxy/protocols/chat/streamAsCompletion.ts';
import { assembled } from '../../support/sseEvents.ts';

const frame = (chunk: object | string): string => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`;
const chunk = (choices: object[], extra: object = {}): object => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 5,
  model: 'm',
  choices,
  ...extra,
});
const read = (frames: string[]) => assembled(completionOfStream({ dropUsageOnlyChunks: false, usageAsked: false }), frames.join(''));

describe('a chat stream put together into one completion', () => {
  // Some gateways number every call 0, each with its own id: two calls, as the translated streams read them.
  it('keeps calls apart that share an index but not an id', () => {
    const call = (id: string, name: string, args: string) => ({ index: 0, id, type: 'function', function: { name, arguments: args } });
    const { answer } = read([
      frame(chunk([{ index: 0, delta: { role: 'assistant', tool_calls: [call('a', 'Read', '{"a":1}')] } }])),
      frame(chunk([{ index: 0, delta: { tool_calls: [call('b', 'Write', '{"b":')] } }])),
      frame(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '2}' } }] } }])),
      frame(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }])),
      frame('[DONE]'),
    ]);
    const message = (answer as { choices: [{ message: { tool_calls: unknown } }] }).choices[0].message;
    expect(message.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'Read', arguments: '{"a":1}' } },
      { id: 'b', type: 'function', function: { name: 'Write', arguments: '{"b":2}' } },
    ]);
  });

  it('joins each choice by index: text, thinking, and tool calls whose id and name come once (DashScope repeats them as "")', () => {
    const {
      answer: completion,
      whole,
      answered,
      error,
    } = read([
      frame(chunk([{ index: 0, delta: { role: 'assistant', reasoning_content: 'Let me ' } }])),
      frame(chunk([{ index: 1, delta: { role: 'assistant', content: 'Sec' } }])),
      frame(
        chunk([
          {
            index: 0,
            delta: {
              reasoning_content: 'look.',
              tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"pa' } }],
            },
          },
        ]),
      ),
      frame(
        chunk([
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: '', function: { name: '', arguments: 'th":"a"}' } }] },
            finish_reason: 'tool_calls',
          },
        ]),
      ),
      frame(chunk([{ index: 1, delta: { content: 'ond' }, finish_reason: 'stop' }])),
      frame(chunk([], { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })),
      frame('[DONE]'),
      frame(chunk([{ index: 1, delta: { content: ' after the end' } }])),
    ]);
    expect({ whole, answered, error }).toEqual({ whole: true, answered: true, error: null });
    expect(completion).toEqual({
      id: 'c1',
      created: 5,
      model: 'm',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            reasoning_content: 'Let me look.',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
        { index: 1, message: { role: 'assistant', content: 'Second' }, finish_reason: 'stop', logprobs: null },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  // TGI's and llama.cpp's servers give a call's arguments as the object itself (huggingface/text-generation-inference#2461, ggml-org/llama.cpp#20198).
  it('keeps tool call arguments streamed as an object, as their JSON text', () => {
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: { path: 'a.txt' } } };
    const { answer } = read([
      frame(chunk([{ index: 0, delta: { role: 'assistant', tool_calls: [call] } }])),
      frame(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }])),
      frame('[DONE]'),
    ]);
    const [choice] = (answer as { choices: [{ message: { tool_calls: [{ function: { arguments: string } }] } }] }).choices;
    expect(JSON.parse(choice.message.tool_calls[0].function.arguments)).toEqual({ path: 'a.txt' });
  });

  it('is not whole before its finish, and an error in it is the answer', () => {
    expect(read([frame(chunk([{ index: 0, delta: { content: 'Hal' } }]))]).whole).toBe(false);
    const failed = read([frame(chunk([{ index: 0, delta: { content: 'Hal' } }])), frame({ error: { message: 'overloaded', code: 529 } })]);
    expect(failed.error?.message).toBe('overloaded');
  });
});

describe('a chat stream of relay dialects put together', () => {
  it("keeps Mistral's content parts as text and thinking (docs.mistral.ai/capabilities/reasoning)", () => {
    const thinkingPart = { type: 'thinking', thinking: [{ type: 'text', text: 'A greeting.' }] };
    const { answer } = read([
      frame(chunk([{ index: 0, delta: { role: 'assistant', content: [thinkingPart] } }])),
      frame(chunk([{ index: 0, delta: { content: [{ type: 'text', text: 'Hel' }] } }])),
      frame(chunk([{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }])),
      frame('[DONE]'),
    ]);
    expect(answer).toMatchObject({ choices: [{ message: { content: 'Hello', reasoning: 'A greeting.' } }] });
  });

  it("keeps Gemini's thought signature on the call it came with (thoughtSignature.ts)", () => {
    const extra = { google: { thought_signature: 'Cs4B+/x==' } };
    const { answer } = read([
      frame(
        chunk([
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' }, extra_content: extra }],
            },
          },
        ]),
      ),
      frame(
        chunk([
          { index: 0, delta: { tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'pwd', arguments: '{}' } }] } },
        ]),
      ),
      frame(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }])),
      frame('[DONE]'),
    ]);
    const calls = (answer as { choices: { message: { tool_calls: object[] } }[] }).choices[0]?.message.tool_calls;
    expect(calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' }, extra_content: extra },
      { id: 'c2', type: 'function', function: { name: 'pwd', arguments: '{}' } },
    ]);
  });
});

describe('a whole completion as the chat stream a client asked for', () => {
  const completion = {
    id: 'c2',
    object: 'chat.completion',
    created: 6,
    model: 'm',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{}' } }],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
  };

  it('reads back as the same completion, its usage in a chunk of its own only when asked for, ending in [DONE]', () => {
    const withUsage = completionAsStream(completion, true) ?? '';
    expect(withUsage.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(assembled(completionOfStream({ dropUsageOnlyChunks: false, usageAsked: true }), withUsage)).toEqual({
      answer: completion,
      whole: true,
      answered: true,
      error: null,
    });
    const withoutUsage = completionAsStream(completion, false) ?? '';
    expect(withoutUsage).not.toContain('usage');
  });

  it('is nothing for an answer without choices', () => {
    expect(completionAsStream({ error: { message: 'no' } }, false)).toBeNull();
  });
});
