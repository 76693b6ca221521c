import { describe, expect, it } from 'vitest';
import { readChatChunk } from '../../../proxy/protocols/chat/chatShapes.ts';
import { createChatStreamBlocks } from '../../../proxy/protocols/chat/chatStreamBlocks.ts';

/** The tool calls a chat stream's pieces come to, as the translations close them. */
function callsOf(pieces: object[]): object[] {
  const blocks = createChatStreamBlocks('toolu_x');
  const events = pieces.flatMap((call) =>
    blocks.apply(readChatChunk({ choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] })),
  );
  return [...events, ...blocks.closeAll()].filter((event) => event.type === 'stop').map((event) => event.block);
}

describe('tool call pieces at one index under another id', () => {
  it("continue the call while its arguments are unfinished (Poolside's later pieces: poolsideai/pool#9)", () => {
    const calls = callsOf([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'Read', arguments: '{"path":' } },
      { index: 0, id: 'call_a2', type: 'function', function: { arguments: '"a.txt"}' } },
    ]);
    expect(calls).toMatchObject([{ callId: 'call_a', name: 'Read', arguments: '{"path":"a.txt"}' }]);
  });

  it('begin a call of their own after a finished one, its name coming later (vercel/ai#14722)', () => {
    const calls = callsOf([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'Read', arguments: '{"p":1}' } },
      { index: 0, id: 'call_b', type: 'function', function: { arguments: '{"p":' } },
      { index: 0, function: { name: 'Write', arguments: '2}' } },
    ]);
    expect(calls).toMatchObject([
      { callId: 'call_a', name: 'Read', arguments: '{"p":1}' },
      { callId: 'call_b', name: 'Write', arguments: '{"p":2}' },
    ]);
  });
});
