import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { byteEstimateTokens, estimateTextTokens } from '../../../proxy/spend/estimate.ts';

/**
 * Claude 4 models return their thinking summarized, or omitted (`thinking.display: "omitted"`, the
 * default on the newest): the block's `thinking` is short or empty, and the full thinking comes
 * encrypted in its `signature`, streamed as one `signature_delta` just before the block's stop
 * (Anthropic's extended thinking guide: the budget and the bill are the full thinking's, not the
 * summary's, and thinking is billed as output even when its text is not returned; Bedrock's Claude
 * guide, "Thinking encryption": the full thinking is encrypted in the signature field; pipecat-ai/pipecat#5183:
 * an omitted block streams as its start with empty thinking, one signature_delta, its stop;
 * UKGovernmentBEIS/inspect_ai#4420: Claude 4.7 and later return such empty thinking where older
 * models returned redacted_thinking; anthropics/claude-code#42260: such signatures run to 13 KB).
 * From a gateway that reports no usage, the thinking is estimated from the signature's decoded size
 * at the redacted-thinking byte rate, or from the visible thinking where that counts more (Claude
 * 3.7 shows its thinking in full with a short signature): never both.
 */
const PRICE = { model: 'claude-opus-4-8', inputPer1M: 5, outputPer1M: 25 };
const REPLY = 'The third option: it keeps the cache warm and the tests fast.';
/** A stand-in for the encrypted full thinking of a few thousand tokens: opaque bytes, base64. */
const LONG_SIGNATURE = Buffer.from(Array.from({ length: 9000 }, (_, index) => (index * 131 + 7) % 256)).toString('base64');
const SIGNED_BYTES = Buffer.from(LONG_SIGNATURE, 'base64').length;
const SUMMARY = 'I compared the three options by cost and by how often each one misses the cache.';
const FULL_THINKING = Array.from({ length: 120 }, (_, step) => `Step ${step}: weigh option ${step % 3} against the last one.`).join(' ');
/** Claude 3.7's signature: a short token, the thinking itself shown in full. */
const SHORT_SIGNATURE = Buffer.alloc(200, 'sig').toString('base64');
const REQUEST = { model: PRICE.model, max_tokens: 16000, messages: [{ role: 'user', content: 'which option?' }] };

let native: Harness;
beforeAll(async () => {
  native = await startHarness({
    profile: { prices: [PRICE], protocolModes: { messages: 'native' } },
    simulator: { nativeProtocols: ['messages'] },
  });
});
afterAll(async () => {
  await native?.close();
});

const event = (type: string, fields: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;

const message = (content: object[]): object => ({
  id: 'msg_s1',
  type: 'message',
  role: 'assistant',
  model: PRICE.model,
  content,
  stop_reason: content.length === 0 ? null : 'end_turn',
  stop_sequence: null,
});

function messageStream(thinking: string, signature: string): string {
  return [
    event('message_start', { message: message([]) }),
    event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    ...(thinking.match(/.{1,60}/gs) ?? []).map((piece) =>
      event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: piece } }),
    ),
    event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature } }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: REPLY } }),
    event('content_block_stop', { index: 1 }),
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null } }),
    event('message_stop', {}),
  ].join('');
}

async function rowOf(stream: boolean, text: string): Promise<Awaited<ReturnType<Harness['nextEnd']>>> {
  const contentType = stream ? 'text/event-stream' : 'application/json';
  const { response, end } = await native.postAnswered('/v1/messages', { ...REQUEST, stream }, { text, contentType });
  expect(response.status, response.body).toBe(200);
  return end;
}

describe('a native Messages answer with signed thinking, without reported usage', () => {
  it.each([
    { name: 'omitted thinking', thinking: '', signature: LONG_SIGNATURE },
    { name: 'summarized thinking', thinking: SUMMARY, signature: LONG_SIGNATURE },
    { name: "Claude 3.7's full thinking", thinking: FULL_THINKING, signature: SHORT_SIGNATURE },
  ])('estimates $name as the larger of what it shows and what its signature holds, whole and streamed', async ({ thinking, signature }) => {
    const thinkingTokens = Math.max(estimateTextTokens(thinking), byteEstimateTokens(Buffer.from(signature, 'base64').length));
    const expected = estimateTextTokens(REPLY) + thinkingTokens;
    const whole = message([
      { type: 'thinking', thinking, signature },
      { type: 'text', text: REPLY },
    ]);
    for (const end of [await rowOf(false, JSON.stringify(whole)), await rowOf(true, messageStream(thinking, signature))]) {
      expect(end.usageSource).toBe('estimated');
      expect(end.usage?.outputTokens).toBe(expected);
    }
  });

  it('counts the signature of a Claude 4 turn that only thought and called a tool', async () => {
    const whole = message([
      { type: 'thinking', thinking: '', signature: LONG_SIGNATURE },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/cache.ts' } },
    ]);
    const end = await rowOf(false, JSON.stringify(whole));
    // The tool call as the model wrote it: its name, then its input.
    expect(end.usage?.outputTokens).toBe(
      byteEstimateTokens(SIGNED_BYTES) + estimateTextTokens(`read_file${JSON.stringify({ path: 'src/cache.ts' })}`),
    );
  });
});
