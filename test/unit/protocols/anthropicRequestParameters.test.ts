import { describe, expect, it } from 'vitest';
import { anthropicToChatRequest } from '../../../proxy/protocols/anthropic/request.ts';
import { base, chatBodyOf, options } from './anthropicRequestHelpers.ts';

describe('anthropicToChatRequest: parameters', () => {
  const messages = [{ role: 'user', content: 'Hi' }];

  it('maps sampling, stop and metadata fields, and drops unknown ones with a note', () => {
    const result = chatBodyOf({
      ...base,
      messages,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
      service_tier: 'auto',
      container: 'container_1',
    });
    expect(result.chatBody).toEqual({
      model: 'gw-model',
      messages,
      max_tokens: 1024,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      user: 'user-42',
    });
    expect(result.stream).toBe(false);
    expect(result.notes).toEqual([
      'dropped unsupported fields: service_tier, container',
      'dropped top_k: Chat Completions has no equivalent',
    ]);
  });

  it("drops Claude Code's user_id, a JSON object longer than chat gateways take as `user`, with a note", () => {
    const userId = JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: '', session_id: '0'.repeat(36) });
    const result = chatBodyOf({ ...base, messages, metadata: { user_id: userId } });
    expect(result.chatBody).not.toHaveProperty('user');
    expect(result.notes).toEqual([`dropped metadata.user_id: ${userId.length} characters, more than chat gateways take as user`]);
  });

  it.each([
    [true, { stream: true, stream_options: { include_usage: true } }],
    [false, { stream: true }],
  ])('stream with includeUsage=%s', (includeUsage, expected) => {
    const result = chatBodyOf({ ...base, messages, stream: true }, { includeUsage });
    expect(result.stream).toBe(true);
    expect(result.chatBody).toMatchObject(expected);
    if (!includeUsage) expect(result.chatBody).not.toHaveProperty('stream_options');
  });

  const tools = [
    {
      name: 'get_weather',
      description: 'Weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      cache_control: { type: 'ephemeral' },
    },
    { type: 'custom', name: 'noop', input_schema: { type: 'object' } },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
  ];

  it('turns custom tools into function tools and drops server tools with a note', () => {
    const result = chatBodyOf({ ...base, messages, tools });
    expect(result.chatBody['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      },
      { type: 'function', function: { name: 'noop', parameters: { type: 'object' } } },
    ]);
    expect(result.notes).toEqual(['dropped server tool web_search_20250305: it runs at Anthropic only']);
  });

  it.each([
    [{ type: 'auto' }, { tool_choice: 'auto' }],
    [{ type: 'any' }, { tool_choice: 'required' }],
    [{ type: 'tool', name: 'noop' }, { tool_choice: { type: 'function', function: { name: 'noop' } } }],
    [{ type: 'none' }, { tool_choice: 'none' }],
    [
      { type: 'auto', disable_parallel_tool_use: true },
      { tool_choice: 'auto', parallel_tool_calls: false },
    ],
  ])('tool_choice %j', (toolChoice, expected) => {
    const chatBody = chatBodyOf({ ...base, messages, tools, tool_choice: toolChoice }).chatBody;
    expect({
      tool_choice: chatBody['tool_choice'],
      ...('parallel_tool_calls' in chatBody ? { parallel_tool_calls: chatBody['parallel_tool_calls'] } : {}),
    }).toEqual(expected);
  });

  it('drops tool_choice when no tool survives translation', () => {
    const result = chatBodyOf({ ...base, messages, tools: [tools[2]], tool_choice: { type: 'auto' } });
    expect(result.chatBody).not.toHaveProperty('tool_choice');
    expect(result.chatBody).not.toHaveProperty('tools');
    expect(result.notes).toContain('dropped tool_choice: no tools to choose from');
  });

  it.each([
    [{ type: 'enabled', budget_tokens: 1024 }, 'low'],
    [{ type: 'enabled', budget_tokens: 8000 }, 'medium'],
    [{ type: 'enabled', budget_tokens: 31999 }, 'high'],
    [{ type: 'adaptive' }, 'medium'],
  ])('thinking %j maps to reasoning_effort %s, the last member sent', (thinking, effort) => {
    const { chatBody } = chatBodyOf({ ...base, messages, thinking, stream: true });
    expect(chatBody['reasoning_effort']).toBe(effort);
    // Last, so that a gateway's refusal of it can take it off the bytes sent (chat/reasoningEffort.ts).
    expect(Object.keys(chatBody).at(-1)).toBe('reasoning_effort');
  });

  // Claude Code 2.1 sends adaptive thinking with output_config.effort (default high); the effort
  // levels are Anthropic's (platform.claude.com/docs/en/build-with-claude/effort: low to max).
  it.each([
    ['low', 'low', []],
    ['medium', 'medium', []],
    ['high', 'high', []],
    ['xhigh', 'high', ['approximated output_config.effort xhigh as reasoning_effort high, the highest chat gateways share']],
    ['max', 'high', ['approximated output_config.effort max as reasoning_effort high, the highest chat gateways share']],
  ])('output_config.effort %s maps to reasoning_effort %s, over the thinking mode', (effort, chatEffort, notes) => {
    const result = chatBodyOf({ ...base, messages, thinking: { type: 'adaptive' }, output_config: { effort } });
    expect(result.chatBody['reasoning_effort']).toBe(chatEffort);
    expect(result.notes).toEqual(notes);
  });

  // Structured outputs (platform.claude.com/docs/en/build-with-claude/structured-outputs): the
  // answer must match the schema, which is chat's strict json_schema response_format.
  it('maps output_config.format json_schema to a strict json_schema response_format', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
    const result = chatBodyOf({ ...base, messages, output_config: { format: { type: 'json_schema', schema } } });
    expect(result.chatBody['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
    expect(result.notes).toEqual([]);
  });

  // OpenAI's reasoning models refuse max_tokens on chat (chat/maxTokens.ts): the bound leads the body, so a refusal renames it on the bytes.
  it.each([
    [false, 'max_tokens'],
    [true, 'max_completion_tokens'],
  ])('max_tokens leads the body (max_tokens refused for the model: %s) as %s, with no note', (maxTokensRefused, name) => {
    const result = chatBodyOf({ ...base, messages }, { maxTokensRefused });
    expect(Object.keys(result.chatBody)).toEqual([name, 'model', 'messages']);
    expect(result.chatBody[name]).toBe(1024);
    expect(result.notes).toEqual([]);
  });

  it("names Claude Code's output_config.effort in the note when the gateway refused its level of reasoning_effort for the model", () => {
    const result = chatBodyOf(
      { ...base, messages, thinking: { type: 'adaptive' }, output_config: { effort: 'low' } },
      { refusedReasoningEfforts: ['low'] },
    );
    expect(result.chatBody).not.toHaveProperty('reasoning_effort');
    expect(result.notes).toEqual(['dropped thinking and output_config.effort: the gateway refused reasoning_effort low for this model']);
  });

  it('drops thinking with a note when the gateway refused its level of reasoning_effort for the model, and only then', () => {
    const thinking = { type: 'enabled', budget_tokens: 2048 };
    expect(chatBodyOf({ ...base, messages, thinking }, { refusedReasoningEfforts: ['high'] }).chatBody['reasoning_effort']).toBe('low');
    const result = chatBodyOf({ ...base, messages, thinking }, { refusedReasoningEfforts: ['low'] });
    expect(result.chatBody).not.toHaveProperty('reasoning_effort');
    expect(result.notes).toEqual(['dropped thinking: the gateway refused reasoning_effort low for this model']);
  });
});

describe('anthropicToChatRequest: refusals', () => {
  it.each([
    [null, 'must be a JSON object'],
    [[], 'must be a JSON object'],
    [{ model: 'm', messages: [{ role: 'user', content: 'x' }] }, 'max_tokens'],
    [{ ...base, messages: [] }, 'messages must not be empty'],
    [{ ...base, messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role'],
    [{ ...base, messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages.0.content.0.text'],
    [
      { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }] },
      'messages.0.content.0.source.data',
    ],
    [{ ...base, messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] }, 'document blocks'],
    // Claude Code's Read tool answers a PDF with a document block inside the tool_result (its
    // toolResult builder maps a read's documents to base64 application/pdf blocks): dropped, the
    // model would read the file as empty.
    [
      {
        ...base,
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a.pdf' } }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }],
              },
            ],
          },
        ],
      },
      'document blocks',
    ],
    [{ ...base, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'broken' }] }, 'tools.0.input_schema'],
  ])('%j is refused with a 400 naming %s', (body, expected) => {
    const result = anthropicToChatRequest(body, options);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.status).toBe(400);
      expect(result.message).toContain(expected);
    }
  });

  it('drops unknown block types with a note instead of refusing', () => {
    const result = chatBodyOf({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'container_upload', file_id: 'file_1' },
            { type: 'text', text: 'q' },
          ],
        },
      ],
    });
    expect(result.chatBody['messages']).toEqual([{ role: 'user', content: 'q' }]);
    expect(result.notes).toEqual(['dropped container_upload blocks']);
  });
});
