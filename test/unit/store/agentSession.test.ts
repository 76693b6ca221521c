import { describe, expect, it } from 'vitest';
import { conversationOpening, derivedSessionId, sessionIdOfRequest } from '../../../proxy/store/write/agentSession.ts';
import { parseBody } from '../../../proxy/store/write/exchangeSummary.ts';

describe("a request's agent session", () => {
  it.each<[string, Record<string, string>, string]>([
    ["Claude Code's header", { 'X-Claude-Code-Session-Id': 'cc-1' }, 'cc-1'],
    ["Codex's session-id", { 'session-id': 'codex-1', 'thread-id': 'thread-1' }, 'codex-1'],
    ["Codex's thread-id alone", { 'thread-id': 'thread-1' }, 'thread-1'],
  ])('%s wins over the conversation', (_name, headers, expected) => {
    const request = { messages: [{ role: 'user', content: 'hi' }] };
    expect(sessionIdOfRequest({ headers, clientName: 'tool', request })).toBe(expected);
  });

  it('without a header, derives conv-<hash> from the client and the opening', () => {
    const id = sessionIdOfRequest({ headers: {}, clientName: 'aider', request: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(id).toMatch(/^conv-[0-9a-f]{24}$/);
  });

  it('keeps the ids already stored: the same opening hashes as it did when sessions were added', () => {
    const request = { system: 'be brief', messages: [{ role: 'user', content: [{ type: 'text', text: 'fix the bug' }] }] };
    expect(derivedSessionId('aider', request)).toBe('conv-f3a42712b96db0ea532c6452');
  });

  it('gives none for a body that is not JSON or holds no user text', () => {
    expect(sessionIdOfRequest({ headers: {}, clientName: 'a', request: parseBody('{"messages": [{"role": "us') })).toBeNull();
    expect(sessionIdOfRequest({ headers: {}, clientName: 'a', request: parseBody(null) })).toBeNull();
    expect(derivedSessionId('a', { messages: [{ role: 'system', content: 'rules' }] })).toBeNull();
    expect(derivedSessionId('a', { model: 'text-embedding-3-small', input: [1, 2, 3] })).toBeNull();
  });
});

/** The same conversation at its first and at a later turn, per protocol: both must land in one session. */
const TURNS: [string, unknown, unknown][] = [
  [
    'chat',
    {
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Fix the test' },
      ],
    },
    {
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Fix the test' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'file' },
      ],
    },
  ],
  [
    'Messages, with a cache marker that moved',
    {
      system: [{ type: 'text', text: 'Be brief' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Fix the test', cache_control: { type: 'ephemeral' } }] }],
    },
    {
      system: [{ type: 'text', text: 'Be brief', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Fix the test' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'file' }] },
      ],
    },
  ],
  [
    'Responses',
    { instructions: 'Be brief', input: [{ role: 'user', content: [{ type: 'input_text', text: 'Fix the test' }] }] },
    {
      instructions: 'Be brief',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Fix the test' }] },
        { type: 'function_call', call_id: 'f1', name: 'read', arguments: '{}' },
        { type: 'function_call_output', call_id: 'f1', output: 'file' },
      ],
    },
  ],
];

describe('a conversation recognised by its opening', () => {
  it.each(TURNS)('%s: a later turn has the first turn’s session', (_name, first, later) => {
    expect(derivedSessionId('tool', first)).not.toBeNull();
    expect(derivedSessionId('tool', later)).toBe(derivedSessionId('tool', first));
  });

  it('another client token or another first message is another session', () => {
    const [, first] = TURNS[0] as [string, unknown, unknown];
    const other = {
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Write docs' },
      ],
    };
    expect(derivedSessionId('other-tool', first)).not.toBe(derivedSessionId('tool', first));
    expect(derivedSessionId('tool', other)).not.toBe(derivedSessionId('tool', first));
  });

  it('reads the opening as instructions, then the first user message', () => {
    expect(conversationOpening({ instructions: 'rules', input: 'just this' })).toEqual(['system:rules', 'user:just this']);
    expect(
      conversationOpening({
        messages: [
          { role: 'developer', content: 'dev' },
          { role: 'user', content: [{ type: 'image_url', image_url: {} }] },
          { role: 'user', content: 'second' },
        ],
      }),
    ).toEqual(['system:dev', 'user:second']);
  });
});
