import { describe, expect, it } from 'vitest';
import { answerTexts, contentText, contentTexts, lastUserText, messagesOf } from '../../../proxy/protocols/messageText.ts';

describe('contentTexts', () => {
  it.each([
    ['a string', 'hi', ['hi']],
    [
      'chat parts',
      [
        { type: 'text', text: 'a' },
        { type: 'image_url', image_url: { url: 'x' } },
      ],
      ['a'],
    ],
    [
      'Messages blocks',
      [
        { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
        { type: 'tool_use', id: 't', input: {} },
      ],
      ['a'],
    ],
    [
      'Responses parts',
      [
        { type: 'input_text', text: 'a' },
        { type: 'output_text', text: 'b' },
      ],
      ['a', 'b'],
    ],
    ['an untyped text block', [{ text: 'a' }], ['a']],
    ['a typed block that is not text', [{ type: 'thinking_note', text: 'x' }], []],
    ['a bare string part', ['x'], []],
    ['neither', 42, []],
  ])('reads %s as text blocks', (_shape, content, expected) => {
    expect(contentTexts(content, 'textBlocks')).toEqual(expected);
  });

  it('counts bare strings and any block carrying text under anyBlock', () => {
    expect(contentTexts(['x', { type: 'thinking_note', text: 'y' }, { type: 'image' }], 'anyBlock')).toEqual(['x', 'y']);
  });

  it('joins the non-empty parts one a line', () => {
    expect(
      contentText(
        [
          { type: 'text', text: 'a' },
          { type: 'text', text: '' },
          { type: 'text', text: 'b' },
        ],
        'textBlocks',
      ),
    ).toBe('a\nb');
    expect(contentText(undefined, 'textBlocks')).toBe('');
  });
});

describe('messages of a request', () => {
  it.each([
    [
      'chat',
      {
        messages: [
          { role: 'user', content: 'old' },
          { role: 'assistant', content: 'x' },
          { role: 'user', content: 'new' },
        ],
      },
      'new',
    ],
    ['Messages', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'r' }] }] }, null],
    [
      'Responses items',
      { input: [{ role: 'user', content: [{ type: 'input_text', text: 'ask' }] }, { type: 'function_call_output' }] },
      'ask',
    ],
    ['Responses string', { input: 'ask' }, 'ask'],
    ['no conversation', { prompt: 'x' }, null],
  ])('finds the last user text of %s', (_shape, request, expected) => {
    expect(lastUserText(request)).toBe(expected);
  });

  it('turns a string input into one user message', () => {
    expect(messagesOf({ input: 'ask' })).toEqual([{ role: 'user', content: 'ask' }]);
    expect(messagesOf('ask')).toBeNull();
  });
});

describe('answerTexts', () => {
  it.each([
    ['chat', { choices: [{ message: { role: 'assistant', content: 'hello' } }] }, ['hello']],
    ['chat with tool calls only', { choices: [{ message: { content: null, tool_calls: [] } }] }, []],
    [
      'Messages',
      {
        type: 'message',
        content: [
          { type: 'thinking', thinking: 'hm' },
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      ['a', 'b'],
    ],
    [
      'Responses',
      {
        output: [
          { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'hm' }] },
          { type: 'message', content: [{ type: 'output_text', text: 'a' }] },
        ],
      },
      ['a'],
    ],
    ['an error', { error: { message: 'no' } }, []],
  ])('reads the text of a %s answer', (_shape, answer, expected) => {
    expect(answerTexts(answer)).toEqual(expected);
  });
});
