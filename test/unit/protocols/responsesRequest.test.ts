import { describe, expect, it } from 'vitest';
import { PREVIOUS_RESPONSE_ID_MESSAGE, responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { translationOptions as options } from './translationOptions.ts';

const base = { model: 'gpt-5-codex' };

function translated(body: Record<string, unknown>, extra: Partial<typeof options> = {}) {
  const result = responsesToChatRequest({ ...base, ...body }, { ...options, ...extra });
  if (!result.ok) throw new Error(`unexpected refusal: ${result.message}`);
  return result;
}

const shellCall = (callId: string, command: string) => ({
  type: 'function_call',
  id: `fc_${callId}`,
  call_id: callId,
  name: 'shell',
  arguments: JSON.stringify({ command: [command] }),
});

const thought = (text: string, encrypted_content: string | null) => ({
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text }],
  encrypted_content,
});

describe('responsesToChatRequest: thinking handed back', () => {
  it.each([
    {
      name: "Airlock's mark: on the tool-call turn it led to, also after the turn's text",
      input: [
        thought('look first', 'airlock:reasoning_content:gw'),
        { role: 'assistant', content: 'Let me look.' },
        shellCall('call_1', 'ls'),
      ],
      reasoning: 'look first',
    },
    {
      name: 'no mark (thinking that came as reasoning): not sent',
      input: [thought('look first', null), shellCall('call_1', 'ls')],
      reasoning: undefined,
    },
    {
      name: "another's encrypted content: not sent",
      input: [thought('look first', 'gAAAAB...'), shellCall('call_1', 'ls')],
      reasoning: undefined,
    },
  ])('$name', ({ input, reasoning }) => {
    const messages = translated({ input: [{ role: 'user', content: 'go' }, ...input] }).chatBody['messages'] as Record<string, unknown>[];
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1' }] });
    expect(messages.at(-1)?.['reasoning_content']).toBe(reasoning);
  });

  it('thinking that led to no tool call is not sent with a later one', () => {
    const input = [
      { role: 'user', content: 'hi' },
      thought('just greet', 'airlock:reasoning_content:gw'),
      { role: 'user', content: 'now list' },
      shellCall('call_1', 'ls'),
    ];
    const messages = translated({ input }).chatBody['messages'] as Record<string, unknown>[];
    expect(messages.some((message) => 'reasoning_content' in message)).toBe(false);
  });
});

describe('responsesToChatRequest: input', () => {
  it.each([
    { name: 'a string input is one user message', body: { input: 'hello' }, messages: [{ role: 'user', content: 'hello' }] },
    {
      // Qwen3.5/3.6 chat templates refuse a second system message even at the start (vllm#41114): one system message leads.
      name: 'instructions and the developer messages the input opens with become the one leading system message',
      body: {
        instructions: 'You are Codex.',
        input: [
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'sandbox: read-only' }] },
          {
            role: 'user',
            content: [
              { type: 'input_text', text: '<env/>' },
              { type: 'input_text', text: 'list files' },
            ],
          },
        ],
      },
      messages: [
        { role: 'system', content: 'You are Codex.\n\nsandbox: read-only' },
        { role: 'user', content: '<env/>\n\nlist files' },
      ],
    },
    {
      name: 'a developer or system message after the conversation began stays in place, as a user message marked as instructions',
      body: {
        instructions: 'You are Codex.',
        input: [
          { role: 'user', content: 'list files' },
          { role: 'assistant', content: 'a.txt' },
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'sandbox: workspace-write' }] },
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'now edit it' },
        ],
      },
      messages: [
        { role: 'system', content: 'You are Codex.' },
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: 'a.txt' },
        { role: 'user', content: '<system-instructions>\nsandbox: workspace-write\n</system-instructions>' },
        { role: 'user', content: '<system-instructions>\nbe brief\n</system-instructions>' },
        { role: 'user', content: 'now edit it' },
      ],
    },
    {
      name: 'input_image parts (URL and data URL) become image_url parts',
      body: {
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'see' },
              { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' },
              { type: 'input_image', image_url: 'https://example.test/a.png' },
            ],
          },
        ],
      },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.test/a.png' } },
          ],
        },
      ],
    },
    {
      name: 'assistant text, then consecutive function calls, merge into one assistant turn; reasoning is ignored',
      body: {
        input: [
          { type: 'message', role: 'user', content: 'go' },
          { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'xyz' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
          shellCall('call_1', 'ls'),
          shellCall('call_2', 'pwd'),
          { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '/work' }] },
          shellCall('call_3', 'cat a.txt'),
        ],
      },
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"command":["ls"]}' } },
            { id: 'call_2', type: 'function', function: { name: 'shell', arguments: '{"command":["pwd"]}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a.txt' },
        { role: 'tool', tool_call_id: 'call_2', content: '/work' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'shell', arguments: '{"command":["cat a.txt"]}' } }],
        },
      ],
    },
    {
      name: 'images in tool output follow all tool messages as one user message',
      body: {
        input: [
          shellCall('c1', 'shot'),
          shellCall('c2', 'ls'),
          {
            type: 'function_call_output',
            call_id: 'c1',
            output: [
              { type: 'input_text', text: 'ok' },
              { type: 'input_image', image_url: 'data:image/png;base64,BB' },
            ],
          },
          { type: 'function_call_output', call_id: 'c2', output: 'x' },
          { role: 'user', content: 'next' },
        ],
      },
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'shell', arguments: '{"command":["shot"]}' } },
            { id: 'c2', type: 'function', function: { name: 'shell', arguments: '{"command":["ls"]}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        { role: 'tool', tool_call_id: 'c2', content: 'x' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,BB' } }] },
        { role: 'user', content: 'next' },
      ],
    },
  ])('$name', ({ body, messages }) => {
    expect(translated(body).chatBody['messages']).toEqual(messages);
  });

  it('drops unknown input item types with a note', () => {
    const result = translated({
      input: [
        { type: 'local_shell_call', call_id: 'x', action: {} },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(result.chatBody['messages']).toEqual([{ role: 'user', content: 'hi' }]);
    expect(result.notes).toEqual(['dropped input items of type local_shell_call']);
  });

  // The remote compaction of codex-rs (core/src/compact.rs, OpenAI and Azure providers): state only
  // OpenAI keeps. Dropped, the trigger became a billed ordinary turn and the compaction lost the conversation.
  it.each([
    ['a compaction request', { type: 'compaction_trigger' }, /Codex asked for remote compaction.*model_providers\.airlock/],
    ['an earlier compaction', { type: 'compaction', encrypted_content: 'gAAA' }, /encrypted summary of the earlier conversation/],
  ])('refuses %s, which a chat model cannot do or read', (_label, item, message) => {
    const result = responsesToChatRequest({ ...base, input: [{ role: 'user', content: 'hi' }, item] }, options);
    expect(result).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(message) });
  });
});

describe('responsesToChatRequest: parameters', () => {
  const input = 'hi';
  const tools = [
    { type: 'function', name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: {} }, strict: false },
    { type: 'function', name: 'no_params' },
    { type: 'web_search' },
    { type: 'local_shell' },
    { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
  ];

  // A namespace's tools are translated too (responsesNamespacedTools.test.ts), custom tools as functions (responsesCustomTools.test.ts).
  it('translates function and custom tools and drops every other tool type with a note, never an error', () => {
    const result = translated({ input, tools, tool_choice: 'auto', parallel_tool_calls: false });
    expect(result.chatBody).toMatchObject({
      tools: [
        {
          type: 'function',
          function: { name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: {} }, strict: false },
        },
        { type: 'function', function: { name: 'no_params', parameters: { type: 'object', properties: {} } } },
        { type: 'function', function: { name: 'apply_patch', parameters: { properties: { input: { type: 'string' } } } } },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(result.notes).toEqual([
      'dropped web_search tools: Chat Completions has function tools only',
      'dropped local_shell tools: Chat Completions has function tools only',
    ]);
  });

  it.each([
    ['required', 'required'],
    ['none', 'none'],
    [
      { type: 'function', name: 'shell' },
      { type: 'function', function: { name: 'shell' } },
    ],
  ])('tool_choice %j', (toolChoice, expected) => {
    expect(translated({ input, tools: tools.slice(0, 1), tool_choice: toolChoice }).chatBody['tool_choice']).toEqual(expected);
  });

  it('maps limits and sampling, consumes store and include, and notes the rest', () => {
    const result = translated({
      input,
      max_output_tokens: 500,
      temperature: 0,
      top_p: 0.5,
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
      text: { verbosity: 'low' },
    });
    expect(result.chatBody).toEqual({
      model: 'gw-model',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 500,
      temperature: 0,
      top_p: 0.5,
    });
    expect(result.notes).toEqual([
      'dropped unsupported fields: prompt_cache_key',
      'dropped text.verbosity: Chat Completions has no equivalent',
    ]);
  });

  it('maps a json_schema output format to response_format', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const result = translated({ input, text: { format: { type: 'json_schema', name: 'verdict', schema, strict: true } } });
    expect(result.chatBody['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'verdict', schema, strict: true } });
  });

  it.each([
    [[], 'high', []],
    [['xhigh'], 'high', []],
    [['xhigh', 'high'], undefined, ['dropped reasoning.effort: the gateway refused reasoning_effort high for this model']],
  ])('reasoning.effort high when the gateway refused the levels %j for the model', (refused, sentEffort, expectedNotes) => {
    const result = translated(
      { input, stream: true, reasoning: { effort: 'high', summary: 'auto' } },
      { refusedReasoningEfforts: refused },
    );
    expect(result.chatBody['reasoning_effort']).toEqual(sentEffort);
    expect(result.notes).toEqual(expectedNotes);
    // Sent last, so that a gateway's refusal of it can take it off the bytes sent (chat/reasoningEffort.ts).
    if (sentEffort !== undefined) expect(Object.keys(result.chatBody).at(-1)).toBe('reasoning_effort');
  });

  // OpenAI's reasoning models refuse max_tokens on chat (chat/maxTokens.ts): the bound leads the body, so a refusal renames it on the bytes.
  it.each([
    [false, 'max_tokens'],
    [true, 'max_completion_tokens'],
  ])('max_output_tokens leads the body (max_tokens refused for the model: %s) as %s, with no note', (maxTokensRefused, name) => {
    const result = translated({ input, max_output_tokens: 500, reasoning: { effort: 'high' } }, { maxTokensRefused });
    expect(Object.keys(result.chatBody)).toEqual([name, 'model', 'messages', 'reasoning_effort']);
    expect(result.chatBody[name]).toBe(500);
    expect(result.notes).toEqual([]);
  });

  it('asks for the usage chunk when streaming', () => {
    expect(translated({ input, stream: true }).chatBody).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(translated({ input, stream: true }, { includeUsage: false }).chatBody).not.toHaveProperty('stream_options');
  });
});

describe('responsesToChatRequest: refusals', () => {
  it.each([
    [{ ...base, input: 'x', previous_response_id: 'resp_1' }, PREVIOUS_RESPONSE_ID_MESSAGE],
    [{ input: 'x' }, 'model'],
    [{ ...base }, 'input is required'],
    [{ ...base, input: [{ type: 'function_call', call_id: 'c', name: 'shell' }] }, 'input.0.arguments'],
    [{ ...base, input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, 'file_id'],
    [{ ...base, input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'x' }] }] }, 'input_file'],
    [{ ...base, input: [{ role: 'critic', content: 'x' }] }, 'input.0.role'],
  ])('%j is refused with a 400 naming %s', (body, expected) => {
    const result = responsesToChatRequest(body, options);
    expect(result).toMatchObject({ ok: false, status: 400 });
    if (!result.ok) expect(result.message).toContain(expected);
  });
});
