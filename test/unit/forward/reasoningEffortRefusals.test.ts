import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { MAX_MODELS_REMEMBERED } from '../../../proxy/forward/learnedModels.ts';
import { ReasoningEffortRefusals } from '../../../proxy/forward/reasoningEffortRefusals.ts';

const profile = profileSchema.parse({ id: 'p', name: 'Gateway', baseUrl: 'https://gateway.example/v1' });

describe('ReasoningEffortRefusals', () => {
  it('keeps every level a model refused', () => {
    const refusals = new ReasoningEffortRefusals();
    refusals.remember(profile, 'glm-4.6', 'xhigh');
    refusals.remember(profile, 'glm-4.6', 'xhigh');
    refusals.remember(profile, 'glm-4.6', 'high');
    expect(refusals.refused(profile, 'glm-4.6')).toEqual(['xhigh', 'high']);
    expect(refusals.refused({ ...profile, baseUrl: 'https://other.example/v1' }, 'glm-4.6')).toEqual([]);
  });

  // Model names come from clients and base URLs from edits: a proxy left running must not keep one
  // entry per name it ever saw. Forgetting costs one 400 that ran nothing, then it is learned again.
  it('forgets the model it learned of longest ago once it remembers the most it keeps', () => {
    const refusals = new ReasoningEffortRefusals();
    refusals.remember(profile, 'model-0', 'high');
    for (let index = 1; index < MAX_MODELS_REMEMBERED; index += 1) refusals.remember(profile, `model-${index}`, 'high');
    // Learned again: it is now the most recent.
    refusals.remember(profile, 'model-0', 'low');
    refusals.remember(profile, 'one-more', 'high');
    expect(refusals.refused(profile, 'model-0')).toEqual(['high', 'low']);
    expect(refusals.refused(profile, 'model-1')).toEqual([]);
    expect(refusals.refused(profile, 'model-2')).toEqual(['high']);
    expect(refusals.refused(profile, 'one-more')).toEqual(['high']);
    refusals.remember(profile, 'two-more', 'high');
    expect(refusals.refused(profile, 'model-2')).toEqual([]);
    // What is kept for the next run is bounded the same way.
    expect(refusals.all()).toHaveLength(MAX_MODELS_REMEMBERED);
  });
});
