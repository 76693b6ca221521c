import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/dialects.ts';
import { FULL_CAPABILITIES } from '../../simulator/modelCapabilities.ts';
import { returnedReasoningRefusal } from '../../simulator/returnedReasoning.ts';

const thinking = { ...FULL_CAPABILITIES, reasoning: true };
const call = [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }];
const toolTurn = (extra: Record<string, unknown>) => [
  { role: 'user', content: 'go' },
  { role: 'assistant', content: null, tool_calls: call, ...extra },
  { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
];

describe('what a reasoning model makes of the thinking it is sent back', () => {
  it.each([
    ['deepseek', toolTurn({}), 400, /Missing `reasoning_content` field in the assistant message at message index 1/],
    ['deepseek', toolTurn({ reasoning_content: 'look' }), null, null],
    ['cerebras', toolTurn({ reasoning_content: 'look' }), 400, /messages\.1\.assistant\.reasoning_content: property .* is unsupported/],
    ['cerebras', toolTurn({}), null, null],
    ['openai', toolTurn({}), null, null],
  ] as const)('%s, %j: %s', (dialect, messages, status, said) => {
    const refusal = returnedReasoningRefusal(DIALECTS[dialect], thinking, messages);
    expect(refusal?.status ?? null).toBe(status);
    if (said !== null) expect(refusal?.body.error.message).toMatch(said);
  });

  it('a model that does not think takes anything', () => {
    expect(returnedReasoningRefusal(DIALECTS.cerebras, FULL_CAPABILITIES, toolTurn({ reasoning_content: 'x' }))).toBeNull();
  });
});
