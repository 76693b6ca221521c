import { describe, expect, it } from 'vitest';
import {
  estimateChatInputTokens,
  estimateTextTokens,
  inputTokensUpperBound,
  IMAGE_INPUT_TOKENS_ESTIMATE,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
} from '../../../proxy/spend/estimate.ts';

describe('estimateTextTokens (o200k)', () => {
  it.each([
    { text: '', tokens: 0 },
    { text: 'hello world', tokens: 2 },
    { text: 'Hello, world!', tokens: 4 },
  ])('$text -> $tokens', ({ text, tokens }) => {
    expect(estimateTextTokens(text)).toBe(tokens);
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    expect(estimateTextTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('is a tokenizer, not a character ratio: repeated words compress', () => {
    expect(estimateTextTokens('the '.repeat(100))).toBeLessThan(150);
    expect(estimateTextTokens('the '.repeat(100))).toBeGreaterThanOrEqual(100);
  });
});

describe('estimateChatInputTokens', () => {
  const framing = (messages: number): number => messages * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS;
  const hello = estimateTextTokens('hello world');
  const tools = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  ];

  it.each([
    { name: 'string content', body: { messages: [{ role: 'user', content: 'hello world' }] }, tokens: framing(1) + hello },
    {
      name: 'text parts',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hello world' },
              { type: 'text', text: 'hello world' },
            ],
          },
        ],
      },
      tokens: framing(1) + 2 * hello,
    },
    {
      name: 'image part at the flat estimate',
      body: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] },
      tokens: framing(1) + IMAGE_INPUT_TOKENS_ESTIMATE,
    },
    {
      name: 'tool definitions',
      body: { messages: [{ role: 'user', content: 'hello world' }], tools },
      tokens: framing(1) + hello + estimateTextTokens(JSON.stringify(tools)),
    },
    {
      name: 'assistant tool calls',
      body: { messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{}' } }] }] },
      tokens: framing(1) + estimateTextTokens(JSON.stringify([{ id: 'a', function: { name: 'f', arguments: '{}' } }])),
    },
    {
      name: 'Anthropic system and blocks',
      body: {
        system: 'hello world',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'tool_result', content: [{ type: 'text', text: 'hello world' }] },
              { type: 'image', source: {} },
            ],
          },
        ],
      },
      tokens: MESSAGE_OVERHEAD_TOKENS + hello + framing(1) + hello + IMAGE_INPUT_TOKENS_ESTIMATE,
    },
    { name: 'no messages', body: { model: 'x' }, tokens: 0 },
    { name: 'not an object', body: 'hello', tokens: 0 },
  ])('$name', ({ body, tokens }) => {
    expect(estimateChatInputTokens(body)).toBe(tokens);
  });

  it('grows with the conversation', () => {
    const one = estimateChatInputTokens({ messages: [{ role: 'user', content: 'a long question about prices' }] });
    const two = estimateChatInputTokens({
      messages: [
        { role: 'user', content: 'a long question about prices' },
        { role: 'assistant', content: 'a long answer about prices' },
      ],
    });
    expect(two).toBeGreaterThan(one);
  });
});

describe('estimateChatInputTokens on Anthropic count_tokens bodies', () => {
  it('grows with the prompt and counts system, tools and tool results', () => {
    const small = estimateChatInputTokens({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    const withSystem = estimateChatInputTokens({
      model: 'm',
      system: 'You are a careful assistant.',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const withTools = estimateChatInputTokens({
      model: 'm',
      system: 'You are a careful assistant.',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'a long tool result with several words in it' }] },
      ],
      tools: [{ name: 'read', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
    });
    expect(small).toBeGreaterThan(0);
    expect(withSystem).toBeGreaterThan(small);
    expect(withTools).toBeGreaterThan(withSystem + 10);
  });
});

describe('inputTokensUpperBound', () => {
  const image = { type: 'image_url', image_url: { url: 'https://img.example/a.png' } };
  it.each([
    { name: 'plain chat', body: { model: 'm', messages: [{ role: 'user', content: 'Hello there, how are you today?' }] } },
    { name: 'many short messages', body: { model: 'm', messages: Array.from({ length: 50 }, () => ({ role: 'user', content: 'a' })) } },
    {
      name: 'escaped and multi-byte text',
      body: { model: 'm', messages: [{ role: 'user', content: '行\n"引用"\t😀 naïve — ünïcode'.repeat(20) }] },
    },
    {
      name: 'tools and tool calls',
      body: {
        model: 'm',
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        messages: [
          { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        ],
      },
    },
    {
      name: 'image parts by URL',
      body: { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, image, image] }] },
    },
    {
      name: 'Anthropic blocks with a nested image',
      body: {
        model: 'm',
        system: 'be brief',
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'url', url: 'u' } }] }],
          },
        ],
      },
    },
  ])('$name: never below the tokenizer’s estimate', ({ body }) => {
    expect(inputTokensUpperBound(body)).toBeGreaterThanOrEqual(estimateChatInputTokens(body));
  });

  it('counts each text as its UTF-8 bytes, and the framing and image parts as the estimate does', () => {
    const body = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'naïve' }, image, { type: 'tool_result', content: [{ type: 'image' }] }] },
      ],
    };
    const expected = MESSAGE_OVERHEAD_TOKENS + Buffer.byteLength('naïve') + 2 * IMAGE_INPUT_TOKENS_ESTIMATE + REPLY_PRIMING_TOKENS;
    expect(inputTokensUpperBound(body)).toBe(expected);
  });
});
