import { describe, expect, it } from 'vitest';
import { joinedToolCallName } from '../../../proxy/protocols/chat/toolCallName.ts';

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
