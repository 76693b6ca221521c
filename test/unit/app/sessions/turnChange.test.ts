import { describe, expect, it } from 'vitest';
import type { ConversationItem } from '../../../../proxy/contracts/agentSessions.ts';
import { requestItems } from '../../../../proxy/app/sessions/conversationItems.ts';
import { turnChange } from '../../../../proxy/app/sessions/turnChange.ts';

/**
 * One agent loop per protocol: the user asks, the model calls a tool, the client sends its result,
 * the model answers and the user asks again. Each request carries the whole history.
 */
interface Loop {
  first: unknown;
  withToolResult: unknown;
  withNextQuestion: unknown;
}

const chatHistory = [
  { role: 'system', content: 'Be brief' },
  { role: 'user', content: 'Fix the test' },
];
const chatCall = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } }],
};
const chatResult = { role: 'tool', tool_call_id: 'c1', content: 'export const a = 1;' };

const messagesHistory = [{ role: 'user', content: [{ type: 'text', text: 'Fix the test' }] }];
const messagesCall = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Reading it.' },
    { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.ts' } },
  ],
};
const messagesResult = {
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'export const a = 1;' }] }],
};

const responsesHistory = [{ role: 'user', content: [{ type: 'input_text', text: 'Fix the test' }] }];
const responsesCall = { type: 'function_call', call_id: 'f1', name: 'read', arguments: '{"path":"a.ts"}' };
const responsesResult = { type: 'function_call_output', call_id: 'f1', output: 'export const a = 1;' };

const LOOPS: [string, Loop, { echoedCall: number }][] = [
  [
    'Chat Completions',
    {
      first: { model: 'm', messages: chatHistory },
      withToolResult: { model: 'm', messages: [...chatHistory, chatCall, chatResult] },
      withNextQuestion: {
        model: 'm',
        messages: [...chatHistory, chatCall, chatResult, { role: 'assistant', content: 'Fixed.' }, { role: 'user', content: 'Now run it' }],
      },
    },
    { echoedCall: 1 },
  ],
  [
    'Anthropic Messages',
    {
      first: { system: 'Be brief', messages: messagesHistory },
      withToolResult: { system: 'Be brief', messages: [...messagesHistory, messagesCall, messagesResult] },
      withNextQuestion: {
        system: 'Be brief',
        messages: [
          ...messagesHistory,
          messagesCall,
          messagesResult,
          { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Now run it' }] },
        ],
      },
    },
    // The text before the tool call is answer too.
    { echoedCall: 2 },
  ],
  [
    'Responses',
    {
      first: { instructions: 'Be brief', input: responsesHistory },
      withToolResult: { instructions: 'Be brief', input: [...responsesHistory, responsesCall, responsesResult] },
      withNextQuestion: {
        instructions: 'Be brief',
        input: [
          ...responsesHistory,
          responsesCall,
          responsesResult,
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] },
          { role: 'user', content: [{ type: 'input_text', text: 'Now run it' }] },
        ],
      },
    },
    { echoedCall: 1 },
  ],
];

const items = (body: unknown): ConversationItem[] => {
  const parsed = requestItems(body);
  if (parsed === null) throw new Error('not a conversation');
  return parsed;
};

describe('the change a turn brings, per protocol', () => {
  it.each(LOOPS)('%s: first turn, then a tool result, then a new question', (_name, loop, expected) => {
    const first = items(loop.first);
    expect(turnChange([], first)).toMatchObject({ kind: 'first', added: first });
    expect(first).toEqual([
      { kind: 'system', text: 'Be brief' },
      { kind: 'user', text: 'Fix the test' },
    ]);

    const second = turnChange([{ index: 1, items: first }], items(loop.withToolResult));
    expect(second).toMatchObject({ kind: 'appended', sinceTurn: 1, keptItems: 2, droppedItems: 0, echoedAnswerItems: expected.echoedCall });
    expect(second.added).toEqual([{ kind: 'tool_result', callId: expect.any(String), isError: false, text: 'export const a = 1;' }]);

    const third = turnChange(
      [
        { index: 1, items: first },
        { index: 2, items: items(loop.withToolResult) },
      ],
      items(loop.withNextQuestion),
    );
    expect(third).toMatchObject({ kind: 'appended', sinceTurn: 2, echoedAnswerItems: 1, added: [{ kind: 'user', text: 'Now run it' }] });
  });

  it.each(LOOPS)('%s: the tool call is read with its name, id and arguments', (_name, loop) => {
    const call = items(loop.withToolResult).find((item) => item.kind === 'tool_call');
    expect(call).toMatchObject({ kind: 'tool_call', name: 'read', callId: expect.stringMatching(/^[ctf]1$/) });
    expect(call && 'text' in call ? JSON.parse(call.text) : null).toEqual({ path: 'a.ts' });
  });
});

describe('turns that do not simply append', () => {
  const main1 = items({ messages: [{ role: 'user', content: 'Fix the test' }] });
  const main2 = items({
    messages: [
      { role: 'user', content: 'Fix the test' },
      { role: 'assistant', content: 'Done' },
      { role: 'user', content: 'Thanks' },
    ],
  });
  const side = items({ messages: [{ role: 'user', content: 'Give this conversation a title' }] });

  it("compares with the earlier turn sharing the most history, stepping over an agent's side request", () => {
    const change = turnChange(
      [
        { index: 1, items: main1 },
        { index: 2, items: side },
      ],
      main2,
    );
    expect(change).toMatchObject({
      kind: 'appended',
      sinceTurn: 1,
      keptItems: 1,
      echoedAnswerItems: 1,
      added: [{ kind: 'user', text: 'Thanks' }],
    });
  });

  it('a compacted history is rewritten: what was kept and dropped is counted', () => {
    const compacted = items({
      messages: [
        { role: 'user', content: 'Summary of the work so far' },
        { role: 'user', content: 'Continue' },
      ],
    });
    expect(turnChange([{ index: 4, items: main2 }], compacted)).toMatchObject({
      kind: 'rewritten',
      sinceTurn: 4,
      keptItems: 0,
      droppedItems: 3,
      added: compacted,
    });
  });

  it('is unknown when this body or every earlier one cannot be read', () => {
    expect(turnChange([{ index: 1, items: main1 }], null, 'cut at the limit')).toMatchObject({
      kind: 'unknown',
      reason: 'cut at the limit',
      added: [],
    });
    expect(turnChange([{ index: 1, items: null }], main2)).toMatchObject({
      kind: 'unknown',
      reason: expect.stringContaining('turn before'),
    });
  });
});
