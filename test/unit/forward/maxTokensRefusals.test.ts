import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { MaxTokensRefusals } from '../../../proxy/forward/maxTokensRefusals.ts';
import { MAX_MODELS_REMEMBERED } from '../../../proxy/forward/learnedModels.ts';

const profile = profileSchema.parse({ id: 'p', name: 'Gateway', baseUrl: 'https://gateway.example/v1' });

describe('MaxTokensRefusals', () => {
  it('knows a model refused max_tokens per profile and base URL', () => {
    const refusals = new MaxTokensRefusals();
    refusals.remember(profile, 'gpt-5.1');
    expect(refusals.refuses(profile, 'gpt-5.1')).toBe(true);
    expect(refusals.refuses(profile, 'gpt-4o-mini')).toBe(false);
    expect(refusals.refuses({ ...profile, baseUrl: 'https://other.example/v1' }, 'gpt-5.1')).toBe(false);
    expect(refusals.refuses({ ...profile, id: 'q' }, 'gpt-5.1')).toBe(false);
  });

  it('reads what an earlier run learned, and tells each model learned with all of them', () => {
    const told: unknown[] = [];
    const refusals = new MaxTokensRefusals({
      known: [{ profileId: 'p', baseUrl: profile.baseUrl, model: 'o3' }],
      onLearned: (all) => told.push(all),
    });
    expect(refusals.refuses(profile, 'o3')).toBe(true);
    refusals.remember(profile, 'o3');
    expect(told).toEqual([]);
    refusals.remember(profile, 'gpt-5.1');
    expect(told).toEqual([
      [
        { profileId: 'p', baseUrl: profile.baseUrl, model: 'o3' },
        { profileId: 'p', baseUrl: profile.baseUrl, model: 'gpt-5.1' },
      ],
    ]);
  });

  // As the reasoning_effort refusals: model names come from clients, so a proxy left running keeps a bounded number.
  it('forgets the model it learned of longest ago once it remembers the most it keeps', () => {
    const refusals = new MaxTokensRefusals();
    for (let index = 0; index < MAX_MODELS_REMEMBERED; index += 1) refusals.remember(profile, `model-${index}`);
    refusals.remember(profile, 'one-more');
    expect(refusals.refuses(profile, 'model-0')).toBe(false);
    expect(refusals.refuses(profile, 'model-1')).toBe(true);
    expect(refusals.refuses(profile, 'one-more')).toBe(true);
    expect(refusals.all()).toHaveLength(MAX_MODELS_REMEMBERED);
  });
});
