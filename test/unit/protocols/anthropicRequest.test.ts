import { describe, expect, it } from 'vitest';
import { TOOL_ERROR_PREFIX } from '../../../proxy/protocols/anthropic/request.ts';
import { base, chatBodyOf } from './anthropicRequestHelpers.ts';

describe('anthropicToChatRequest: messages', () => {
  it.each([
    {
      name: 'system string becomes the leading system message',
      body: { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    },
    {
      name: 'system text blocks are joined and cache_control is dropped',
      body: {
        system: [
          { type: 'text', text: 'A', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'B' },
        ],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
      },
      messages: [
        { role: 'system', content: 'A\n\nB' },
        { role: 'user', content: 'Hi' },
      ],
    },
    {
      // Qwen3.5/3.6 chat templates refuse a system message anywhere but first (vllm#41114).
      name: 'a system message mid-conversation stays in place, as a user message marked as instructions',
      body: {
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'system', content: [{ type: 'text', text: 'rule' }] },
          { role: 'user', content: 'b' },
        ],
      },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'a' },
        { role: 'user', content: '<system-instructions>\nrule\n</system-instructions>' },
        { role: 'user', content: 'b' },
      ],
    },
    {
      name: 'the system field and system messages before the first turn become one leading system message',
      body: {
        system: 'Be brief.',
        messages: [
          { role: 'system', content: 'rule' },
          { role: 'user', content: 'a' },
        ],
      },
      messages: [
        { role: 'system', content: 'Be brief.\n\nrule' },
        { role: 'user', content: 'a' },
      ],
    },
    {
      name: 'several user text blocks become one string',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '<reminder>' },
              { type: 'text', text: 'do it' },
            ],
          },
        ],
      },
      messages: [{ role: 'user', content: '<reminder>\n\ndo it' }],
    },
    {
      name: 'images (base64 and URL) become image_url parts next to text',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } },
              { type: 'image', source: { type: 'url', url: 'https://example.test/cat.jpg' } },
              { type: 'text', text: 'What is this?' },
            ],
          },
        ],
      },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
            { type: 'image_url', image_url: { url: 'https://example.test/cat.jpg' } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    },
    {
      name: 'assistant tool_use becomes tool_calls with JSON arguments; thinking is dropped',
      body: {
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig' },
              { type: 'redacted_thinking', data: 'xx' },
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Zürich' } },
              { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
            ],
          },
        ],
      },
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
      ],
    },
    {
      name: 'tool_result blocks become tool messages first, then the rest of the user turn',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
              {
                type: 'tool_result',
                tool_use_id: 'toolu_2',
                content: [
                  { type: 'text', text: '12:00' },
                  { type: 'text', text: 'UTC' },
                ],
              },
              { type: 'tool_result', tool_use_id: 'toolu_3', content: 'ENOENT', is_error: true },
              { type: 'text', text: 'thanks' },
            ],
          },
        ],
      },
      messages: [
        { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'toolu_2', content: '12:00\nUTC' },
        { role: 'tool', tool_call_id: 'toolu_3', content: `${TOOL_ERROR_PREFIX}ENOENT` },
        { role: 'user', content: 'thanks' },
      ],
    },
    {
      // A search_result block (RAG's results, in a turn or a tool's result) is text with a title and a source:
      // chat has no such part, and dropped, the model never saw what was found.
      name: 'search_result blocks become text naming their title and source, in a turn and in a tool result',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [
                  {
                    type: 'search_result',
                    source: 'https://docs.example/a',
                    title: 'A',
                    content: [
                      { type: 'text', text: 'first' },
                      { type: 'text', text: 'second' },
                    ],
                    citations: { enabled: true },
                  },
                ],
              },
              { type: 'search_result', source: 'kb://b', title: 'B', content: [{ type: 'text', text: 'third' }] },
              { type: 'text', text: 'answer from these' },
            ],
          },
        ],
      },
      messages: [
        {
          role: 'tool',
          tool_call_id: 'toolu_1',
          content: '<search_result>\ntitle: A\nsource: https://docs.example/a\n\nfirst\n\nsecond\n</search_result>',
        },
        { role: 'user', content: '<search_result>\ntitle: B\nsource: kb://b\n\nthird\n</search_result>\n\nanswer from these' },
      ],
    },
    {
      name: 'an image returned by a tool follows the tool messages as a user message',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_img',
                content: [
                  { type: 'text', text: 'screenshot' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAA' } },
                ],
              },
            ],
          },
        ],
      },
      messages: [
        { role: 'tool', tool_call_id: 'toolu_img', content: 'screenshot' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAA' } }] },
      ],
    },
    {
      name: "thinking Airlock marked as the gateway's reasoning_content goes back on its tool-call turn only",
      body: {
        messages: [
          { role: 'user', content: 'a' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'said', signature: 'airlock:reasoning_content:gw' },
              { type: 'text', text: 'ok' },
            ],
          },
          { role: 'user', content: 'b' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'look first', signature: 'airlock:reasoning_content:gw' },
              { type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} },
            ],
          },
        ],
      },
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'b' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
          reasoning_content: 'look first',
        },
      ],
    },
    {
      name: 'an assistant turn with only thinking disappears',
      body: {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 't' }] },
        ],
      },
      messages: [{ role: 'user', content: 'a' }],
    },
  ])('$name', ({ body, messages }) => {
    expect(chatBodyOf({ ...base, ...body }).chatBody['messages']).toEqual(messages);
  });
});
