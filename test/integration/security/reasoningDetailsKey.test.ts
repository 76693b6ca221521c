import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sseData } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { keyFreeChatStream } from './fixtures/keyFreeChatStream.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * OpenRouter streams a reasoning model's thinking twice in each delta: as `reasoning` and in
 * `reasoning_details`, an item per detail `index` whose `text` (type `reasoning.text`) or `summary`
 * (type `reasoning.summary`, OpenAI's models) holds the same piece (openrouter.ai/docs/guides/
 * best-practices/reasoning-tokens; a recorded gpt-5 stream in charmbracelet/fantasy's
 * providertests/testdata/TestOpenRouterCommon). Clients join those pieces per index as they join
 * `reasoning`: openai-python's stream helper joins every string of a delta, list items by their
 * `index` (src/openai/lib/streaming/_deltas.py). A key the model thinks about, a few characters a
 * delta, must be whole in neither.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
});

const chunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'gen-1', object: 'chat.completion.chunk', created: 1, model: 'openai/gpt-5', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** The thinking in pieces of five characters, each as OpenRouter sends it: in `reasoning` and in a detail. */
function thinkingChunks(thinking: string, detail: (piece: string) => object): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < thinking.length; at += 5) {
    const piece = thinking.slice(at, at + 5);
    chunks.push(chunk({ role: 'assistant', content: '', reasoning: piece, reasoning_details: [detail(piece)] }));
  }
  return chunks;
}

/** The text a client joins from one path of every delta. */
function joined(body: string, read: (delta: Record<string, unknown>) => unknown): string {
  return sseData(body)
    .filter((data) => data !== '[DONE]')
    .map((data) => read((JSON.parse(data) as { choices: [{ delta: Record<string, unknown> }] }).choices[0]?.delta ?? {}))
    .filter((value): value is string => typeof value === 'string')
    .join('');
}

const detailText = (delta: Record<string, unknown>, property: string): unknown =>
  (delta.reasoning_details as Array<Record<string, unknown>> | undefined)?.find((detail) => detail.index === 0)?.[property];

describe.each([
  ['reasoning.text', 'text', { format: 'anthropic-claude-v1' }],
  ['reasoning.summary', 'summary', { format: 'openai-responses-v1' }],
])('a key in thinking streamed as %s details', (type, property, extra) => {
  it('reaches the chat client and the log in neither field, and both fields read alike', async () => {
    const thinking = `The user pasted ${SENTINEL_KEY} as their key, then its s`;
    const body = await keyFreeChatStream(harness, [
      ...thinkingChunks(thinking, (piece) => ({ type, [property]: piece, ...extra, index: 0 })),
      chunk({ content: 'Done.' }),
      chunk({}, 'stop'),
      'data: [DONE]\n\n',
    ]);
    const reasoning = joined(body, (delta) => delta.reasoning);
    expect(reasoning).toBe('The user pasted [redacted] as their key, then its s');
    expect(joined(body, (delta) => detailText(delta, property))).toBe(reasoning);
  });
});
