import { describe, expect, it } from 'vitest';
import { anthropicToChatRequest } from '../../../proxy/protocols/anthropic/request.ts';
import { responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { translationOptions as options } from './translationOptions.ts';

const messages = (turns: unknown[], extra: Record<string, unknown> = {}) =>
  anthropicToChatRequest({ model: 'm', max_tokens: 10, messages: turns, ...extra }, options);
const responses = (input: unknown, extra: Record<string, unknown> = {}) => responsesToChatRequest({ model: 'm', input, ...extra }, options);

const earlierTurns = [
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
];

/**
 * A user's message of blocks none of which chat can carry was dropped whole: the model then answered
 * the turn before it, billed, and nobody was told (Anthropic's container_upload block, a Responses
 * `text` part written as chat writes it). Dropping some blocks of a message that keeps others stays a note.
 */
describe('a user message that translation would leave empty is refused, naming where and what', () => {
  it.each([
    [
      'Messages: a last turn of container_upload blocks only',
      () => messages([...earlierTurns, { role: 'user', content: [{ type: 'container_upload', file_id: 'file_1' }] }]),
      ['messages.2.content', 'container_upload', 'text, image, search_result and tool_result'],
    ],
    [
      'Messages: Responses parts sent to the Messages API',
      () => messages([{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]),
      ['messages.0.content', 'input_text'],
    ],
    [
      'Responses: chat-style text parts',
      () => responses([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]),
      ['input.0.content', 'text', 'input_text, input_image'],
    ],
    [
      'Responses: a later message of unknown parts',
      () =>
        responses([
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: 'first answer' },
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] },
        ]),
      ['input.2.content', 'input_audio'],
    ],
  ])('%s', (_case, translate, named) => {
    const result = translate();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    for (const words of named) expect(result.message).toContain(words);
    expect(result.message).toContain('earlier turn');
  });

  it.each([
    [
      'Messages: text beside an unknown block',
      () =>
        messages([
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'container_upload', file_id: 'file_1' },
            ],
          },
        ]),
      'dropped container_upload blocks',
    ],
    [
      'Responses: input_text beside an unknown part',
      () =>
        responses([
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'hi' },
              { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
            ],
          },
        ]),
      'dropped content parts of type input_audio',
    ],
  ])('%s still goes, with a note', (_case, translate, note) => {
    const result = translate();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.notes).toContain(note);
    expect(result.chatBody['messages']).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('keeps a Messages turn of tool results only: it becomes tool messages', () => {
    const result = messages([
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
    ]);
    expect(result.ok).toBe(true);
  });
});

// A tool's result that held only content chat cannot carry went as an empty tool message: the model took it
// for a tool that returned nothing, and may call it again. It is told what the result held instead.
describe("a tool's result that translation would leave empty says what it held", () => {
  const toolCallTurns = [
    { role: 'user', content: 'look' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'fetch', input: {} }] },
  ];
  it.each([
    [
      'Messages',
      () =>
        messages([
          ...toolCallTurns,
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'container_upload', file_id: 'f' }] }],
          },
        ]),
      'container_upload',
    ],
    [
      'Responses',
      () =>
        responses([
          { role: 'user', content: 'look' },
          { type: 'function_call', call_id: 'call_1', name: 'fetch', arguments: '{}' },
          {
            type: 'function_call_output',
            call_id: 'call_1',
            output: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }],
          },
        ]),
      'input_audio',
    ],
  ])('%s', (_case, translate, type) => {
    const result = translate();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const tool = (result.chatBody['messages'] as { role: string; content: unknown }[]).find((message) => message.role === 'tool');
    expect(tool?.content).toBe(`[The tool's result is not shown: it held only ${type} content, which Chat Completions cannot carry.]`);
  });

  it('leaves a result that is empty as the tool gave it', () => {
    const result = messages([...toolCallTurns, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [] }] }]);
    expect(result.ok && (result.chatBody['messages'] as { content: unknown }[]).at(-1)?.content).toBe('');
  });
});

describe('a request the translator cannot read says what the client likely meant', () => {
  // The OpenAI Agents SDK and others refer to stored items so (platform.openai.com/docs/api-reference/responses/create, input item_reference).
  // platform.claude.com/docs/en/build-with-claude/files: an image block's source may be { type: 'file', file_id }.
  it.each([
    ['in a turn', [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }]],
    [
      'in a tool result',
      [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }],
    ],
  ])('refuses an image given by file_id %s, naming the Files API', (_case, content) => {
    const result = messages([{ role: 'user', content }]);
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('messages.0: an image given by file_id (the Files API)') });
  });

  it('refuses an item_reference, which names state Airlock does not keep, rather than dropping it', () => {
    const result = responses([
      { type: 'item_reference', id: 'msg_1' },
      { role: 'user', content: 'go on' },
    ]);
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('send the item itself') });
  });

  it('names a missing required field as missing, with its type', () => {
    const result = anthropicToChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, options);
    expect(result).toMatchObject({ ok: false, message: 'invalid Messages request: max_tokens is required (a number)' });
  });

  it('names a field of the wrong type with what came', () => {
    const result = messages('hi' as unknown as unknown[]);
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringContaining('messages: Invalid input: expected array, received string'),
    });
  });

  it('tells a Responses request sent with chat messages to send them as input', () => {
    const result = responsesToChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, options);
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('`messages` is a Chat Completions field') });
  });

  it('names the item types it dropped when no input is left', () => {
    const result = responses([{ type: 'some_future_item', text: 'hi' }]);
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('some_future_item') });
  });
});
