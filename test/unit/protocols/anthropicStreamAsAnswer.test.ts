import { describe, expect, it } from 'vitest';
import { messageAsStream, messageOfStream } from '../../../proxy/protocols/anthropic/streamAsAnswer.ts';
import { assembled } from '../../support/sseEvents.ts';

const frame = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

describe('a Messages stream read whole as its message', () => {
  it('builds thinking, text and tool-use blocks from their deltas, with the final stop reason and counts', () => {
    const stream = [
      frame('message_start', {
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'm',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      }),
      frame('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      frame('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Look ' } }),
      frame('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'first.' } }),
      frame('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
      frame('content_block_stop', { index: 0 }),
      frame('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
      frame('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Reading.' } }),
      frame('content_block_stop', { index: 1 }),
      frame('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'tu_1', name: 'read', input: {} } }),
      frame('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"path":' } }),
      frame('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"a"}' } }),
      frame('content_block_stop', { index: 2 }),
      frame('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: null, output_tokens: 12 } }),
      frame('message_stop', {}),
    ];
    expect(assembled(messageOfStream(), stream.join(''))).toEqual({
      answer: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [
          { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'tu_1', name: 'read', input: { path: 'a' } },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 12 },
      },
      whole: true,
      answered: true,
      error: null,
    });
  });

  it('is not whole without message_stop', () => {
    const start = frame('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } });
    expect(assembled(messageOfStream(), start).whole).toBe(false);
  });
});

describe('a whole message as the Messages stream a client asked for', () => {
  it('reads back as the same message', () => {
    const message = {
      id: 'msg_2',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [
        { type: 'thinking', thinking: 'Hm.', signature: 'sig' },
        { type: 'text', text: 'Done.' },
        { type: 'tool_use', id: 'tu_2', name: 'write', input: { path: 'b', lines: [1, 2] } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 4, output_tokens: 6 },
    };
    const stream = messageAsStream(message) ?? '';
    expect(stream.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(assembled(messageOfStream(), stream)).toEqual({ answer: message, whole: true, answered: true, error: null });
  });

  it('is nothing for an error', () => {
    expect(messageAsStream({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } })).toBeNull();
  });
});
