import { describe, expect, it } from 'vitest';
import { responseAsStream, responseOfStream } from '../../../proxy/protocols/responses/streamAsAnswer.ts';
import { assembled } from '../../support/sseEvents.ts';

const response = {
  id: 'resp_1',
  object: 'response',
  created_at: 1,
  status: 'completed',
  model: 'm',
  output: [
    { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thought.' }] },
    {
      id: 'msg_1',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello', annotations: [] }],
    },
    { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'read', arguments: '{"path":"a"}' },
  ],
  usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
};

describe('a whole response and the Responses stream it amounts to', () => {
  it('streams each item, its text as a delta, and reads back as the same response from the final event', () => {
    const stream = responseAsStream(response) ?? '';
    const types = [...stream.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.filter((type) => type === 'response.output_item.done')).toHaveLength(3);
    expect(types.at(-1)).toBe('response.completed');
    expect(assembled(responseOfStream(), stream)).toEqual({ answer: response, whole: true, answered: true, error: null });
  });

  it('ends an incomplete response with response.incomplete, and is nothing for an error', () => {
    expect(responseAsStream({ ...response, status: 'incomplete' })).toContain('event: response.incomplete');
    expect(responseAsStream({ error: { message: 'no' } })).toBeNull();
  });

  // Codex and the OpenAI SDK read response.completed as a finished turn, however empty: a failed response is their error.
  it('ends a failed response with response.failed', () => {
    const failed = { ...response, status: 'failed', output: [], error: { code: 'server_error', message: 'The model failed' } };
    const types = [...(responseAsStream(failed) ?? '').matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(types).toEqual(['response.created', 'response.failed']);
  });
});
