import { describe, expect, it } from 'vitest';
import { isAcceptableImageUrl, parseJsonBody, validateChatRequest, type ChatLimits } from '../../simulator/chatRequest.ts';

const limits: ChatLimits = { knownModels: new Set(['qwen-plus']), maxContextChars: 20 };
const user = (content: unknown) => ({ role: 'user', content });

describe('parseJsonBody', () => {
  it.each([
    ['{"model":"x"}', true],
    ['{"model":', false],
    ['', false],
    ['[1,2]', false],
    ['null', false],
    ['"text"', false],
  ])('%j -> ok %s', (text, ok) => {
    const result = parseJsonBody(Buffer.from(text));
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
  });
});

describe('isAcceptableImageUrl', () => {
  it.each([
    ['data:image/png;base64,iVBORw0KGgo=', true],
    ['data:image/jpeg,abc', true],
    ['data:;base64,iVBORw0KGgo=', false],
    ['data:base64,iVBORw0KGgo=', false],
    ['https://example.com/cat.png', true],
    ['ftp://example.com/cat.png', false],
    [42, false],
  ])('%s -> %s', (url, expected) => {
    expect(isAcceptableImageUrl(url)).toBe(expected);
  });
});

describe('validateChatRequest', () => {
  it.each([
    ['missing model', { messages: [user('hi')] }, 400, 'missing_required_parameter'],
    ['empty model', { model: '', messages: [user('hi')] }, 400, 'missing_required_parameter'],
    ['missing messages', { model: 'qwen-plus' }, 400, 'invalid_request'],
    ['empty messages', { model: 'qwen-plus', messages: [] }, 400, 'invalid_request'],
    ['unknown model', { model: 'qwen-pluss', messages: [user('hi')] }, 404, 'model_not_found'],
    ['message without role', { model: 'qwen-plus', messages: [{ content: 'hi' }] }, 400, 'invalid_request'],
    ['content of wrong type', { model: 'qwen-plus', messages: [user(5)] }, 400, 'invalid_request'],
    ['unknown part type', { model: 'qwen-plus', messages: [user([{ type: 'video', url: 'x' }])] }, 400, 'invalid_request'],
    [
      'data URL without MIME',
      { model: 'qwen-plus', messages: [user([{ type: 'image_url', image_url: { url: 'data:;base64,AA' } }])] },
      400,
      'invalid_request',
    ],
    ['over the context', { model: 'qwen-plus', messages: [user('x'.repeat(15)), user('y'.repeat(6))] }, 400, 'context_length_exceeded'],
  ])('refuses %s', (_name, json, status, code) => {
    expect(validateChatRequest(json, limits)).toMatchObject({ ok: false, status, body: { error: { code } } });
  });

  it('reads the request a reply is planned from', () => {
    const result = validateChatRequest(
      {
        model: 'qwen-plus',
        stream: true,
        stream_options: { include_usage: true },
        tools: [{ type: 'function', function: { name: 'f' } }],
        stop: ['###', '', 7],
        messages: [
          { role: 'system', content: 'be brief' },
          user([
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
          ]),
          { role: 'assistant', content: null, tool_calls: [] },
        ],
      },
      limits,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        model: 'qwen-plus',
        stream: true,
        includeUsage: true,
        hasTools: true,
        forcedToolName: null,
        promptChars: 12,
        lastUserText: 'look',
        stop: ['###'],
      },
    });
  });

  it.each([
    [{ stream: false, stream_options: { include_usage: true } }, false, false],
    [{ stream: true }, true, false],
    [{ stream: true, stream_options: { include_usage: false } }, true, false],
    [{ stream: 'true' }, false, false],
  ])('stream flags from %j', (extra, stream, includeUsage) => {
    const result = validateChatRequest({ model: 'qwen-plus', messages: [user('hi')], ...extra }, limits);
    expect(result).toMatchObject({ ok: true, value: { stream, includeUsage } });
  });
});
