import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { thinkingSignatureBytes } from '../../../proxy/protocols/anthropic/encryptedThinking.ts';
import type { SseEvent } from '../../../proxy/protocols/sse.ts';

const event = (type: string, fields: object): SseEvent => ({ event: type, data: JSON.stringify({ type, ...fields }) });
const delta = (index: number, fields: object): SseEvent => event('content_block_delta', { index, delta: fields });
const SIGNATURE = Buffer.alloc(600, 'full thinking').toString('base64');

/**
 * Each thinking block streams its start, its thinking deltas (none when omitted), one signature_delta
 * and its stop (Bedrock's Claude guide, "Thinking encryption"; pipecat-ai/pipecat#5183): its signature
 * is reported with that block's visible thinking only, for the estimate to weigh one against the other.
 */
describe('the Messages observer: a thinking block signature with its own visible thinking', () => {
  it('reports each block once, with the thinking it showed', () => {
    const signed: [string, number][] = [];
    const other: string[] = [];
    const observer = anthropicAdapter.stream.observer(
      {
        onDelta: () => undefined,
        onOtherOutput: (text) => other.push(text),
        onSignedThinking: (visibleThinking, signatureBytes) => signed.push([visibleThinking, signatureBytes]),
        onModel: () => undefined,
        onUsage: () => undefined,
      },
      { dropUsageOnlyChunks: false, usageAsked: false },
    );
    const events = [
      event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      delta(0, { type: 'thinking_delta', thinking: 'Compare the ' }),
      delta(0, { type: 'thinking_delta', thinking: 'two options.' }),
      delta(0, { type: 'signature_delta', signature: SIGNATURE }),
      event('content_block_stop', { index: 0 }),
      event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 't1', name: 'read', input: {} } }),
      delta(1, { type: 'input_json_delta', partial_json: '{"path":"a"}' }),
      event('content_block_stop', { index: 1 }),
      // Interleaved thinking after a tool call, omitted: no thinking deltas at all.
      event('content_block_start', { index: 2, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      delta(2, { type: 'signature_delta', signature: SIGNATURE }),
      event('content_block_stop', { index: 2 }),
      // A signature that is no string counts nothing and throws nothing.
      event('content_block_start', { index: 3, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      delta(3, { type: 'signature_delta', signature: null }),
      event('content_block_stop', { index: 3 }),
    ];
    for (const each of events) observer.observe(each);
    const signatureBytes = thinkingSignatureBytes(SIGNATURE);
    expect(signatureBytes).toBe(600);
    expect(signed).toEqual([
      ['Compare the two options.', signatureBytes],
      ['', signatureBytes],
    ]);
    expect(other).toEqual(['Compare the ', 'two options.', '{"path":"a"}']);
  });
});
