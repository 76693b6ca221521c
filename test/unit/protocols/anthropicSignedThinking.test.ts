import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { thinkingSignatureBytes } from '../../../proxy/protocols/anthropic/encryptedThinking.ts';
import type { SseEvent } from '../../../proxy/protocols/sse.ts';

const event = (type: string, fields: object): SseEvent => ({ event: type, data: JSON.stringify({ type, ...fields }) });
const delta = (index: number, fields: object): SseEvent => event('content_block_delta', { index, delta: fields });
const SIGNATURE = Buffer.alloc(600, 'full thinking').toString('base64');

/**
 * Each thinking block streams its start, its thinking deltas (none when omitted), one signature_delta
 * and its stop (Bedrock's Claude guide, "Thinking encryption"; pipecat-ai/pipecat#5183). Its thinking
 * and its signature are reported by the block's index, for the estimate to weigh one against the other;
 * a signature a relay splits, or sends after the next block started (rikkahub/rikkahub#1076), adds up
 * in its own block.
 */
describe('the Messages observer: thinking and signatures by their block', () => {
  function observed(events: SseEvent[]): { thinking: [number, string][]; signatures: Map<number, number>; other: string[] } {
    const thinking: [number, string][] = [];
    const signatures = new Map<number, number>();
    const other: string[] = [];
    const observer = anthropicAdapter.stream.observer(
      {
        onDelta: () => undefined,
        onOtherOutput: (text) => other.push(text),
        onThinking: (blockIndex, text) => thinking.push([blockIndex, text]),
        onThinkingSignature: (blockIndex, signatureBytes) => signatures.set(blockIndex, signatureBytes),
        onModel: () => undefined,
        onUsage: () => undefined,
      },
      { dropUsageOnlyChunks: false, usageAsked: false },
    );
    for (const each of events) observer.observe(each);
    return { thinking, signatures, other };
  }
  const thinkingStart = (index: number): SseEvent =>
    event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });

  it('reports each block with the thinking it showed', () => {
    const { thinking, signatures, other } = observed([
      thinkingStart(0),
      delta(0, { type: 'thinking_delta', thinking: 'Compare the ' }),
      delta(0, { type: 'thinking_delta', thinking: 'two options.' }),
      delta(0, { type: 'signature_delta', signature: SIGNATURE }),
      event('content_block_stop', { index: 0 }),
      event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 't1', name: 'read', input: {} } }),
      delta(1, { type: 'input_json_delta', partial_json: '{"path":"a"}' }),
      event('content_block_stop', { index: 1 }),
      // Interleaved thinking after a tool call, omitted: no thinking deltas at all.
      thinkingStart(2),
      delta(2, { type: 'signature_delta', signature: SIGNATURE }),
      event('content_block_stop', { index: 2 }),
      // A signature that is no string counts nothing and throws nothing.
      thinkingStart(3),
      delta(3, { type: 'signature_delta', signature: null }),
      event('content_block_stop', { index: 3 }),
    ]);
    const signatureBytes = thinkingSignatureBytes(SIGNATURE);
    expect(signatureBytes).toBe(600);
    expect(thinking).toEqual([
      [0, 'Compare the '],
      [0, 'two options.'],
    ]);
    expect([...signatures]).toEqual([
      [0, signatureBytes],
      [2, signatureBytes],
    ]);
    // The tool's name and its input, as the model wrote them.
    expect(other).toEqual(['read', '{"path":"a"}']);
  });

  it('adds up a signature split into pieces, wherever the split falls, and one sent after the next block started', () => {
    // 601 bytes: base64 with padding, split off a multiple of 4 characters.
    const padded = Buffer.alloc(601, 'full thinking').toString('base64');
    const { signatures } = observed([
      thinkingStart(0),
      delta(0, { type: 'signature_delta', signature: padded.slice(0, 333) }),
      delta(0, { type: 'signature_delta', signature: padded.slice(333) }),
      thinkingStart(1),
      event('content_block_start', { index: 2, content_block: { type: 'text', text: '' } }),
      delta(1, { type: 'signature_delta', signature: SIGNATURE }),
    ]);
    expect([...signatures]).toEqual([
      [0, 601],
      [1, 600],
    ]);
  });
});
