import { describe, expect, it } from 'vitest';
import { callContinued, joinedToolCallName, type PiecedCall } from '../../../proxy/protocols/chat/toolCallName.ts';

const joinedAll = (pieces: string[]): string => pieces.reduce(joinedToolCallName, '');

describe("a streamed tool call's name put together from its deltas' names", () => {
  it('is the one name sent whole once (OpenAI, vLLM), later "" pieces adding nothing (DashScope)', () => {
    expect(joinedAll(['read_file', '', ''])).toBe('read_file');
  });

  it('is the pieces joined when it comes in pieces (Gemini)', () => {
    expect(joinedAll(['edit_ex', 'isting_file'])).toBe('edit_existing_file');
  });

  it('is the name once when it is sent whole again on every delta (MiniMax through NIM)', () => {
    expect(joinedAll(['read_file', 'read_file', 'read_file'])).toBe('read_file');
  });
});

describe('the call a streamed piece continues', () => {
  const calls: PiecedCall[] = [
    { chatIndex: 0, chatId: 'a' },
    { chatIndex: 1, chatId: 'b' },
    { chatIndex: 0, chatId: 'c' },
  ];
  it.each<[string, { index: number | null; id: string | null; name: string | null }, PiecedCall | undefined]>([
    ['its id names it', { index: 0, id: 'a', name: null }, calls[0]],
    ['its id names it, though its name is sent again (MiniMax through NIM)', { index: 0, id: 'b', name: 'read' }, calls[1]],
    ['no id: the latest call at its index', { index: 0, id: null, name: null }, calls[2]],
    ['no id and no index: the last call', { index: null, id: null, name: null }, calls[2]],
    // Gateways that number every call 0 give each its own id: a call of its own, not the one before joined with it.
    ['a new id with a name at a taken index begins a call', { index: 0, id: 'd', name: 'write' }, undefined],
    ['a new id without a name continues the call at its index', { index: 1, id: 'e', name: null }, calls[1]],
    ['an index no call has begins one', { index: 2, id: null, name: 'list' }, undefined],
  ])('%s', (_case, piece, expected) => {
    expect(callContinued(calls, piece)).toBe(expected);
  });
});
