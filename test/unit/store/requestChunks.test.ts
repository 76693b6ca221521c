import { describe, expect, it } from 'vitest';
import { chunkCuts, MIN_SPLIT_CHARS, requestChunks } from '../../../proxy/store/write/requestChunks.ts';

/** Text long enough that a message holding it is cut into its members. */
const long = (label: string): string => `${label}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(MIN_SPLIT_CHARS / 27))}`;

type Message = Record<string, unknown>;
type Shape = {
  name: string;
  body(history: Message[]): Record<string, unknown>;
  user(text: string): Message;
  assistant(text: string): Message;
};

const TOOLS = Array.from({ length: 5 }, (_, index) => ({
  name: `tool_${index}`,
  description: long(`tool ${index}`),
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
}));

/** The three conversation shapes Airlock logs, with their usual members around the history. */
const SHAPES: Shape[] = [
  {
    name: 'chat completions',
    body: (messages) => ({ model: 'gpt-4o', messages, tools: TOOLS, stream: true, stream_options: { include_usage: true } }),
    user: (text) => ({ role: 'user', content: text }),
    assistant: (text) => ({
      role: 'assistant',
      content: text,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }],
    }),
  },
  {
    name: 'anthropic messages',
    // Claude Code's order: the history comes before system and tools.
    body: (messages) => ({
      model: 'claude-sonnet-4',
      messages,
      system: [{ type: 'text', text: long('system') }],
      tools: TOOLS,
      max_tokens: 32000,
      stream: true,
    }),
    user: (text) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] }),
    assistant: (text) => ({
      role: 'assistant',
      content: [
        { type: 'text', text },
        { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.ts' } },
      ],
    }),
  },
  {
    name: 'responses',
    body: (input) => ({ model: 'gpt-5-codex', instructions: long('instructions'), input, tools: TOOLS, store: false, stream: true }),
    user: (text) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }),
    assistant: (text) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }),
  },
];

function conversation(shape: Shape, turns: number): Message[] {
  const history: Message[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    history.push(shape.user(turn % 3 === 0 ? long(`question ${turn}`) : `question ${turn}`));
    if (turn < turns) history.push(shape.assistant(turn % 2 === 0 ? long(`answer ${turn}`) : `answer ${turn}`));
  }
  return history;
}

/** Pieces of `next` that `previous` did not have: what storing `next` after `previous` adds. */
function addedPieces(previous: string, next: string): string[] {
  const known = new Set(requestChunks(previous));
  return requestChunks(next).filter((piece) => !known.has(piece));
}

describe('requestChunks', () => {
  describe.each(SHAPES)('$name', (shape) => {
    it('gives back the exact text, compact and pretty-printed', () => {
      for (const space of [undefined, 2, '\t']) {
        const text = JSON.stringify(shape.body(conversation(shape, 8)), null, space);
        const pieces = requestChunks(text);
        expect(pieces.join('')).toBe(text);
        expect(pieces.length).toBeGreaterThan(10);
      }
    });

    it('stores only the new turn when a turn is appended', () => {
      const before = conversation(shape, 6);
      const after = [...before, shape.assistant('answer 6 NEW-ASSISTANT'), shape.user('question 7 NEW-USER')];
      const added = addedPieces(JSON.stringify(shape.body(before)), JSON.stringify(shape.body(after))).join('');
      expect(added).toContain('NEW-ASSISTANT');
      expect(added).toContain('NEW-USER');
      // Nothing of the earlier turns, the tools or the system prompt is stored again.
      for (const old of ['question 1', 'answer 2', 'question 3', 'tool 0', 'system', 'instructions']) expect(added).not.toContain(old);
      expect(added.length).toBeLessThan(400);
    });

    it('stores only the edited message when a client rewrites an earlier turn', () => {
      const before = conversation(shape, 6);
      const edited = before.map((message, index) => (index === 2 ? shape.user(long('question 2 REWRITTEN')) : message));
      const after = [...edited, shape.assistant('answer 6'), shape.user('question 7')];
      const added = addedPieces(JSON.stringify(shape.body(before)), JSON.stringify(shape.body(after))).join('');
      expect(added).toContain('REWRITTEN');
      for (const old of ['question 1', 'answer 2', 'question 4', 'answer 4', 'tool 0']) expect(added).not.toContain(old);
    });

    it('keeps every string value whole inside one piece, so search finds it', () => {
      const body = shape.body(conversation(shape, 9));
      const text = JSON.stringify(body);
      const pieces = requestChunks(text);
      const strings: string[] = [];
      JSON.stringify(body, (_key, value: unknown) => {
        if (typeof value === 'string') strings.push(JSON.stringify(value));
        return value;
      });
      for (const value of strings) expect(pieces.some((piece) => piece.includes(value))).toBe(true);
    });
  });

  it('stores a moved cache marker as the two small members that changed, not the block it sits in', () => {
    const result = (text: string, marked: boolean): Message => ({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: text, ...(marked ? { cache_control: { type: 'ephemeral' } } : {}) }],
    });
    const body = (messages: Message[]): string => JSON.stringify({ model: 'claude', messages, stream: true });
    const file = long('FILE CONTENTS');
    const before = body([result('first', false), result(file, true)]);
    const after = body([result('first', false), result(file, false), result('next', true)]);
    const added = addedPieces(before, after).join('');
    expect(added).not.toContain('FILE CONTENTS');
    expect(added).toContain('next');
  });

  it.each([
    ['escaped quotes and backslashes', JSON.stringify({ a: 'say \\"hi\\" \\\\', messages: [long('x "quoted" \\ end')] })],
    ['text outside the basic plane', JSON.stringify({ messages: [long('emoji 🙂 and 漢字'), 'more 🙂'] })],
    ['a body cut off by the size cap', JSON.stringify({ model: 'm', messages: [long('one'), long('two')] }).slice(0, 1500)],
    ['a cut inside a string', `{"messages":["${long('unterminated')}`],
    ['not JSON', 'plain text, with [brackets] and {braces}'],
    ['a top-level array', `[${JSON.stringify(long('x'))}, 1]`],
    ['blanks around the object', `  \n{"a": [1, 2]}\n  `],
    ['an empty body', ''],
    ['empty containers', '{"a":[],"b":{},"c":[ ]}'],
  ])('gives back %s exactly', (_name, text) => {
    expect(requestChunks(text).join('')).toBe(text);
  });

  it('does not cut what is not a top-level JSON object', () => {
    expect(chunkCuts('plain text, with [brackets]')).toEqual([]);
    expect(chunkCuts(`[${JSON.stringify(long('x'))}, 1]`)).toEqual([]);
  });

  it('cuts the members of the top-level object, and small containers not at all', () => {
    expect(requestChunks('{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}')).toEqual([
      '{"model":"m"',
      ',"messages":[{"role":"user","content":"hi"}]',
      ',"stream":true',
      '}',
    ]);
  });

  it('cuts a large array before each comma and before its closing bracket, its first element staying with its key', () => {
    const big = long('big');
    const text = `{"messages": [ "${big}", "${big}2" ],"stream":true}`;
    expect(requestChunks(text)).toEqual([`{"messages": [ "${big}"`, `, "${big}2"`, ' ]', ',"stream":true', '}']);
  });
});
