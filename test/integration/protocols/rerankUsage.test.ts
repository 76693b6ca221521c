import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A rerank states its tokens as `total_tokens` alone: OpenRouter's answer has `usage: {search_units,
 * total_tokens, cost}` (openrouter.ai/docs, CreateRerankResponseBody), Jina's `usage: {total_tokens}`.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { prices: [{ model: 'cohere/rerank-v3.5', inputPer1M: 1 }] } });
});
afterAll(() => harness.close());

const RERANK_REQUEST = {
  model: 'cohere/rerank-v3.5',
  query: 'capital of France',
  documents: ['Paris is the capital of France.', 'Berlin'],
};

describe('a rerank whose usage is a total alone', () => {
  it("is billed at the gateway's count, not an estimate, with the charge the gateway stated kept", async () => {
    const answer = {
      id: 'gen-rerank-1',
      model: 'cohere/rerank-v3.5',
      results: [{ index: 0, relevance_score: 0.98, document: { text: 'Paris is the capital of France.' } }],
      usage: { search_units: 1, total_tokens: 150, cost: 0.002 },
    };
    const { response, end } = await harness.postAnswered('/v1/rerank', RERANK_REQUEST, {
      text: JSON.stringify(answer),
      contentType: 'application/json',
    });
    expect(response.status).toBe(200);
    expect(end.usageSource).toBe('reported');
    expect(end.usage).toMatchObject({ inputTokens: 150, outputTokens: 0, gatewayCost: 0.002 });
    expect(end.costCredits).toBeCloseTo(0.00015, 12);
  });

  it('is still estimated where the answer states no whole total', async () => {
    const { end } = await harness.postAnswered('/v1/rerank', RERANK_REQUEST, {
      text: JSON.stringify({ results: [{ index: 0, relevance_score: 0.9 }], usage: { total_tokens: 'many' } }),
      contentType: 'application/json',
    });
    expect(end.usageSource).toBe('estimated');
  });
});
