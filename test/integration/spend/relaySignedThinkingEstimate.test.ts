import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { byteEstimateTokens, estimateTextTokens } from '../../../proxy/spend/estimate.ts';

/**
 * Relays that put Claude behind a chat completions API hand its thinking blocks on beside the
 * plain thinking text: LiteLLM as `thinking_blocks` (`{type: "thinking", thinking, signature}`,
 * streamed a piece a delta, the signature in a delta of its own: docs.litellm.ai/docs/reasoning_content
 * and its anthropic stream handler), OpenRouter as `reasoning_details` (`{type: "reasoning.text",
 * text, signature, format, index}`, streamed by `index`, the signature in a piece of its own, as
 * recorded in charmbracelet/fantasy's TestOpenRouterThinking/claude-sonnet-4-sig cassettes;
 * openrouter.ai/docs/use-cases/reasoning-tokens). A Claude 4 model's signature holds its full
 * thinking, of which the text is a summary or nothing: without reported usage, each block counts as
 * the larger of the two, as a native Messages answer's does (signedThinkingEstimate.test.ts).
 */
const REPLY = 'The third option: it keeps the cache warm and the tests fast.';
const LONG_SIGNATURE = Buffer.from(Array.from({ length: 9000 }, (_, index) => (index * 131 + 7) % 256)).toString('base64');
const SUMMARY = 'I compared the three options by cost and by how often each one misses the cache.';
const REQUEST = { model: 'claude-opus-4-8', messages: [{ role: 'user', content: 'which option?' }] };

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

interface SignedBlock {
  thinking: string;
  signature: string;
}

interface Relay {
  name: string;
  /** The message's thinking fields for these signed blocks. */
  whole(blocks: SignedBlock[]): object;
  /** The deltas of one signed block: its thinking in pieces, then its signature. */
  deltas(thinking: string, signature: string): object[];
}

const pieces = (text: string): string[] => text.match(/.{1,30}/gs) ?? [];

const RELAYS: Relay[] = [
  {
    name: 'LiteLLM',
    whole: (blocks) => ({
      reasoning_content: blocks.map((block) => block.thinking).join(''),
      thinking_blocks: blocks.map((block) => ({ type: 'thinking', ...block })),
    }),
    deltas: (thinking, signature) => [
      ...pieces(thinking).map((piece) => ({
        reasoning_content: piece,
        thinking_blocks: [{ type: 'thinking', thinking: piece, signature: null }],
      })),
      { reasoning_content: '', thinking_blocks: [{ type: 'thinking', thinking: '', signature }] },
    ],
  },
  {
    name: 'OpenRouter',
    whole: (blocks) => ({
      reasoning: blocks.map((block) => block.thinking).join(''),
      reasoning_details: blocks.map(({ thinking, signature }, index) => ({
        type: 'reasoning.text',
        text: thinking,
        signature,
        format: 'anthropic-claude-v1',
        index,
      })),
    }),
    deltas: (thinking, signature) => [
      ...pieces(thinking).map((piece) => ({
        reasoning: piece,
        reasoning_details: [{ type: 'reasoning.text', text: piece, format: 'anthropic-claude-v1', index: 0 }],
      })),
      { reasoning: null, reasoning_details: [{ type: 'reasoning.text', signature, format: 'anthropic-claude-v1', index: 0 }] },
    ],
  },
];

function completion(fields: object): string {
  const message = { role: 'assistant', content: REPLY, ...fields };
  return JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    model: REQUEST.model,
    choices: [{ index: 0, message, finish_reason: 'stop' }],
  });
}

function completionStream(deltas: object[]): string {
  const chunk = (delta: object, finishReason: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: REQUEST.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  return [...deltas.map((delta) => chunk(delta)), chunk({ content: REPLY }), chunk({}, 'stop'), 'data: [DONE]\n\n'].join('');
}

async function estimatedOutput(stream: boolean, text: string): Promise<number | undefined> {
  const contentType = stream ? 'text/event-stream' : 'application/json';
  const { response, end } = await harness.postAnswered('/v1/chat/completions', { ...REQUEST, stream }, { text, contentType });
  expect(response.status, response.body).toBe(200);
  expect(end.usageSource).toBe('estimated');
  return end.usage?.outputTokens;
}

describe.each(RELAYS)('a chat answer from $name with signed Claude thinking, without reported usage', (relay) => {
  it.each([
    { name: 'omitted thinking', thinking: '' },
    { name: 'summarized thinking', thinking: SUMMARY },
  ])('estimates $name as the larger of what it shows and what its signature holds, whole and streamed', async ({ thinking }) => {
    const thinkingTokens = Math.max(estimateTextTokens(thinking), byteEstimateTokens(Buffer.from(LONG_SIGNATURE, 'base64').length));
    const expected = estimateTextTokens(REPLY) + thinkingTokens;
    expect(await estimatedOutput(false, completion(relay.whole([{ thinking, signature: LONG_SIGNATURE }])))).toBe(expected);
    expect(await estimatedOutput(true, completionStream(relay.deltas(thinking, LONG_SIGNATURE)))).toBe(expected);
  });

  it('weighs each of two blocks against its own signature', async () => {
    const second = 'Then I checked the second option once more.';
    const shortSignature = Buffer.from('sig').toString('base64');
    const fields = relay.whole([
      { thinking: SUMMARY, signature: LONG_SIGNATURE },
      { thinking: second, signature: shortSignature },
    ]);
    // The thinking text is tokenized whole; the first block's signature holds more than it shows, the second's less.
    const expected =
      estimateTextTokens(REPLY) +
      estimateTextTokens(`${SUMMARY}${second}`) +
      byteEstimateTokens(Buffer.from(LONG_SIGNATURE, 'base64').length) -
      estimateTextTokens(SUMMARY);
    expect(await estimatedOutput(false, completion(fields))).toBe(expected);
  });
});
