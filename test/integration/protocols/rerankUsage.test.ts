import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';

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

/**
 * A total beside an output count alone is no rerank's: Volcengine Ark's video task states
 * `usage: {completion_tokens, total_tokens}`, the two equal, its video models counting no input
 * (Ark's API reference, 查询视频生成任务 API: total_tokens = completion_tokens).
 */
describe('a usage that states its output and its total alone', () => {
  it('is output, not input: a finished Seedance task polled', async () => {
    const task = {
      id: 'cgt-20251129-1',
      model: 'doubao-seedance-1-0-pro-250528',
      status: 'succeeded',
      content: { video_url: 'https://example.invalid/v.mp4' },
      usage: { completion_tokens: 108900, total_tokens: 108900 },
    };
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: JSON.stringify(task) });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/contents/generations/tasks/cgt-20251129-1`, {
      method: 'GET',
      headers: JSON_HEADERS,
    });
    expect(response.status).toBe(200);
    const end = await ended;
    expect(end.usage).toMatchObject({ inputTokens: 0, outputTokens: 108900 });
    // A poll is not billed again: only its creation was.
    expect(end.costCredits).toBeNull();
  });
});
