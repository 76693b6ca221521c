import { describe, expect, it } from 'vitest';
import type { Usage } from '../../simulator/chatReply.ts';
import { wordedUsage, type UsageWording } from '../../simulator/usageWording.ts';

const counts: Usage = { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130, cachedTokens: 64, reasoningTokens: 20 };

describe('wordedUsage: the same counts as each gateway words them', () => {
  it.each<[UsageWording, Usage, Record<string, unknown>]>([
    [
      'openai',
      counts,
      {
        prompt_tokens: 100,
        completion_tokens: 30,
        total_tokens: 130,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 20 },
      },
    ],
    ['openai', { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }],
    [
      'deepseek',
      counts,
      {
        prompt_tokens: 100,
        completion_tokens: 30,
        total_tokens: 130,
        prompt_cache_hit_tokens: 64,
        prompt_cache_miss_tokens: 36,
        completion_tokens_details: { reasoning_tokens: 20 },
      },
    ],
    ['gemini', counts, { prompt_tokens: 100, completion_tokens: 10, total_tokens: 130 }],
    [
      'openrouter',
      { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
      { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, cost: 0.000_009, cost_details: { upstream_inference_cost: null } },
    ],
  ])('%s', (wording, usage, worded) => {
    expect(wordedUsage(usage, wording)).toEqual(worded);
  });
});
