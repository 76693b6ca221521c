import { describe, expect, it } from 'vitest';
import { anthropicNativeRequest } from '../../../proxy/protocols/anthropic/nativeRequest.ts';
import { responsesNativeRequest } from '../../../proxy/protocols/responses/nativeRequest.ts';

/** What a native request loses of what Airlock's translation gave its client earlier in the session. */
describe('anthropicNativeRequest', () => {
  const signed = { type: 'thinking', thinking: 'real', signature: 'EqQBCkYIBxgCKkA' };

  it.each([
    ['the reasoning_content mark', 'airlock:reasoning_content'],
    ['the reasoning mark', 'airlock:reasoning'],
    ['an empty signature (an Airlock before every block was marked)', ''],
  ])('leaves out a thinking block with %s, and an assistant turn it leaves empty', (_label, signature) => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature }] },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'y', signature }, signed, { type: 'text', text: 'ok' }] },
    ];
    expect(anthropicNativeRequest.clean({ model: 'm', messages })).toEqual({
      body: {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [signed, { type: 'text', text: 'ok' }] },
        ],
      },
      note: 'dropped 2 thinking blocks Airlock made under translation',
    });
  });

  it('leaves a body with only signed thinking, and the mark in plain text, as it is', () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'what does "airlock:reasoning" mean?' }] },
      { role: 'assistant', content: [signed, { type: 'redacted_thinking', data: 'abc' }] },
    ];
    expect(anthropicNativeRequest.clean({ model: 'm', messages })).toBeNull();
  });
});

describe('responsesNativeRequest', () => {
  it('leaves out the reasoning items Airlock marked, and keeps encrypted ones and ones without content', () => {
    const genuine = { type: 'reasoning', summary: [], encrypted_content: 'gAAAAABo' };
    const stored = { type: 'reasoning', id: 'rs_1', summary: [] };
    const input = [
      { role: 'user', content: 'go' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'a' }], encrypted_content: 'airlock:reasoning_content' },
      { type: 'reasoning', summary: [], encrypted_content: 'airlock:reasoning' },
      genuine,
      stored,
    ];
    expect(responsesNativeRequest.clean({ model: 'm', input })).toEqual({
      body: { model: 'm', input: [input[0], genuine, stored] },
      note: 'dropped 2 reasoning items Airlock made under translation',
    });
    expect(responsesNativeRequest.clean({ model: 'm', input: 'airlock:reasoning' })).toBeNull();
  });
});
