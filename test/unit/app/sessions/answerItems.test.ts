import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../../proxy/contracts/agentSessions.ts';
import { TIMELINE_TEXT_MAX_CHARS } from '../../../../proxy/contracts/agentSessions.ts';
import { answerItemsOfJson, requestItems } from '../../../../proxy/app/sessions/conversationItems.ts';
import { answerItemsOfStream } from '../../../../proxy/app/sessions/streamAnswer.ts';
import { charactersSearched } from '../../../support/charactersSearched.ts';
import { planReply, planStream } from '../../../simulator/chatReply.ts';
import type { ChatRequest } from '../../../simulator/chatRequest.ts';

const CHAT_REQUEST: ChatRequest = {
  model: 'gpt-4o-mini',
  stream: true,
  includeUsage: false,
  hasTools: true,
  forcedToolName: null,
  promptChars: 10,
  lastUserText: 'edit it',
  stop: [],
};

const sse = (events: Array<[string | null, unknown]>): string =>
  events
    .map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
    .join('');

/** Every shape answers "Reading it." and calls read({"path":"a.ts"}). */
const EXPECTED: ConversationItem[] = [
  { kind: 'assistant', text: 'Reading it.' },
  { kind: 'tool_call', name: 'read', callId: 'call_1', text: '{"path":"a.ts"}' },
];

describe('a whole answer as items', () => {
  it.each<[string, unknown]>([
    [
      'Chat Completions',
      {
        choices: [
          {
            message: {
              role: 'assistant',
              content: 'Reading it.',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } }],
            },
          },
        ],
      },
    ],
    [
      'Anthropic Messages',
      {
        type: 'message',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.ts' } },
        ],
      },
    ],
    [
      'Responses',
      {
        object: 'response',
        output: [
          { type: 'reasoning', summary: [] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading it.' }] },
          { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.ts"}' },
        ],
      },
    ],
  ])('%s', (_name, answer) => {
    expect(answerItemsOfJson(answer)).toEqual(EXPECTED);
  });

  it('is null for a body of no known shape', () => {
    expect(answerItemsOfJson({ data: [] })).toBeNull();
    expect(answerItemsOfJson('text')).toBeNull();
  });
});

describe('a streamed answer rebuilt from its raw events', () => {
  it.each<[string, string]>([
    [
      'Chat Completions, text and a tool call in pieces',
      sse([
        [null, { choices: [{ index: 0, delta: { role: 'assistant', content: 'Reading ' } }] }],
        [null, { choices: [{ index: 0, delta: { content: 'it.' } }] }],
        [
          null,
          {
            choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'read', arguments: '{"path":' } }] } }],
          },
        ],
        [null, { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] } }] }],
        [null, { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }],
        [null, '[DONE]'],
      ]),
    ],
    [
      'Anthropic Messages',
      sse([
        ['message_start', { type: 'message_start', message: { content: [] } }],
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Reading it.' } }],
        [
          'content_block_start',
          { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'read', input: {} } },
        ],
        ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"a.ts"}' } }],
        ['message_stop', { type: 'message_stop' }],
      ]),
    ],
    [
      'Responses, up to its completed event',
      sse([
        ['response.output_text.delta', { type: 'response.output_text.delta', delta: 'Reading it.' }],
        [
          'response.completed',
          {
            type: 'response.completed',
            response: {
              output: [
                { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading it.' }] },
                { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.ts"}' },
              ],
            },
          },
        ],
      ]),
    ],
    [
      'Responses cut before its completed event',
      sse([
        ['response.output_text.delta', { type: 'response.output_text.delta', delta: 'Reading it.' }],
        [
          'response.output_item.done',
          {
            type: 'response.output_item.done',
            output_index: 1,
            item: { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.ts"}' },
          },
        ],
      ]),
    ],
  ])('%s', (_name, raw) => {
    expect(answerItemsOfStream(raw)).toEqual(EXPECTED);
  });

  // The log keeps the gateway's chat events, a translated stream's too: a name comes as its gateway sent it (dialects.ts).
  it.each(['inPieces', 'everyDelta'] as const)('reads a chat tool call whose name the gateway streamed %s as the name, once', (names) => {
    const plan = planReply(
      CHAT_REQUEST,
      { sequence: 's1', createdS: 1 },
      { kind: 'reply', toolCalls: [{ name: 'edit_existing_file', arguments: '{"path":"a.ts"}' }] },
    );
    const streamed = planStream(plan, 3, false, undefined, names);
    const raw = sse([streamed.head, ...streamed.deltas, ...streamed.tail].map((chunk) => [null, chunk]));
    expect(answerItemsOfStream(raw)).toEqual([
      { kind: 'tool_call', name: 'edit_existing_file', callId: 'call_s1_0', text: '{"path":"a.ts"}' },
    ]);
  });

  it('reads chat tool calls that share an index but not an id as two calls', () => {
    const call = (id: string, name: string, args: string) => ({ index: 0, id, type: 'function', function: { name, arguments: args } });
    const raw = sse([
      [null, { choices: [{ delta: { tool_calls: [call('a', 'Read', '{"a":1}')] } }] }],
      [null, { choices: [{ delta: { tool_calls: [call('b', 'Write', '{"b":2}')] } }] }],
    ]);
    expect(answerItemsOfStream(raw)).toEqual([
      { kind: 'tool_call', name: 'Read', callId: 'a', text: '{"a":1}' },
      { kind: 'tool_call', name: 'Write', callId: 'b', text: '{"b":2}' },
    ]);
  });

  it('reads a tool search Codex runs from a Responses stream cut before its completed event', () => {
    const item = { type: 'tool_search_call', call_id: 's', execution: 'client', arguments: { query: 'weather' } };
    const raw = sse([['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }]]);
    expect(answerItemsOfStream(raw)).toEqual([{ kind: 'tool_call', name: 'tool_search', callId: 's', text: '{"query":"weather"}' }]);
  });

  it('keeps reasoning apart from the answer', () => {
    const raw = sse([
      [null, { choices: [{ delta: { reasoning_content: 'Think first.' } }] }],
      [null, { choices: [{ delta: { content: 'Answer.' } }] }],
    ]);
    expect(answerItemsOfStream(raw)).toEqual([
      { kind: 'reasoning', text: 'Think first.' },
      { kind: 'assistant', text: 'Answer.' },
    ]);
  });

  it('reads a stream whose lines end in a lone CR (the SSE spec allows it), its last event included', () => {
    const raw = sse([
      [null, { choices: [{ index: 0, delta: { content: 'Reading ' } }] }],
      [null, { choices: [{ index: 0, delta: { content: 'it.' }, finish_reason: 'stop' }] }],
    ]);
    expect(answerItemsOfStream(raw.replaceAll('\n', '\r'))).toEqual(answerItemsOfStream(raw));
    expect(answerItemsOfStream(raw.replaceAll('\n', '\r\n'))).toEqual(answerItemsOfStream(raw));
    const long = raw.repeat(1_000).replaceAll('\n', '\r');
    expect(charactersSearched(() => answerItemsOfStream(long))).toBeLessThan(long.length * 4);
  });

  it('is null when no event carried JSON', () => {
    expect(answerItemsOfStream(': keep-alive\n\ndata: [DONE]\n\n')).toBeNull();
  });
});

describe('request items', () => {
  it('cut long texts and say so; images count as items', () => {
    const long = 'x'.repeat(TIMELINE_TEXT_MAX_CHARS + 10);
    const parsed = requestItems({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: {} },
            { type: 'text', text: long },
          ],
        },
      ],
    });
    expect(parsed).toEqual([{ kind: 'image' }, { kind: 'user', text: long.slice(0, TIMELINE_TEXT_MAX_CHARS), cut: true }]);
  });

  it('reads an error tool result of Messages and Codex’s custom tool calls', () => {
    expect(
      requestItems({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', is_error: true, content: 'boom' }] }] }),
    ).toEqual([{ kind: 'tool_result', callId: 't', isError: true, text: 'boom' }]);
    expect(
      requestItems({
        input: [
          { type: 'custom_tool_call', call_id: 'p', name: 'apply_patch', input: '*** Begin Patch' },
          { type: 'custom_tool_call_output', call_id: 'p', output: 'Done' },
        ],
      }),
    ).toEqual([
      { kind: 'tool_call', name: 'apply_patch', callId: 'p', text: '*** Begin Patch' },
      { kind: 'tool_result', callId: 'p', isError: false, text: 'Done' },
    ]);
  });

  it('reads Codex’s tool search: the search as a call of tool_search, and the tools it found as its result', () => {
    const forecast = { type: 'function', name: 'forecast', description: 'Weather forecast', parameters: {} };
    expect(
      requestItems({
        input: [
          { type: 'tool_search_call', call_id: 's', execution: 'client', arguments: { query: 'weather' } },
          {
            type: 'tool_search_output',
            call_id: 's',
            execution: 'client',
            tools: [{ type: 'namespace', name: 'mcp__weather__', tools: [forecast] }],
          },
          { type: 'tool_search_output', call_id: 'n', execution: 'client', tools: [] },
        ],
      }),
    ).toEqual([
      { kind: 'tool_call', name: 'tool_search', callId: 's', text: '{"query":"weather"}' },
      { kind: 'tool_result', callId: 's', isError: false, text: 'mcp__weather__.forecast' },
      { kind: 'tool_result', callId: 'n', isError: false, text: '' },
    ]);
  });

  it('reads Claude Code’s ToolSearch result as the names of the tools it found, as Codex’s is read', () => {
    const found = [
      { type: 'tool_reference', tool_name: 'mcp__weather__forecast' },
      { type: 'tool_reference', tool_name: 'mcp__weather__alerts' },
    ];
    expect(
      requestItems({
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'ToolSearch', input: { query: 'weather' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: found }] },
        ],
      }),
    ).toEqual([
      { kind: 'tool_call', name: 'ToolSearch', callId: 't', text: '{"query":"weather"}' },
      { kind: 'tool_result', callId: 't', isError: false, text: 'mcp__weather__forecast, mcp__weather__alerts' },
    ]);
  });

  it('is null for a body without messages or input', () => {
    expect(requestItems({ model: 'm', prompt: 'legacy completion' })).toBeNull();
  });
});
