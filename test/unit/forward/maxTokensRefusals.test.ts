import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { MaxTokensRefusals, planWithMaxCompletionTokens } from '../../../proxy/forward/maxTokensRefusals.ts';
import type { ExchangePlan } from '../../../proxy/forward/plan.ts';
import { MAX_MODELS_REMEMBERED } from '../../../proxy/forward/learnedModels.ts';
import { MAX_TOKENS_REFUSAL } from '../../support/maxTokensRefusal.ts';

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

/** A chat client's own request as planned: the fields the rename reads, and its body as sent, in pieces. */
function nativePlan(pieces: string[], overrides: Partial<ExchangePlan> = {}): ExchangePlan {
  const body = pieces.map((piece) => Buffer.from(piece));
  return {
    mode: 'native',
    method: 'POST',
    upstreamPath: 'chat/completions',
    body,
    byteLength: body.reduce((sum, piece) => sum + piece.length, 0),
    ...overrides,
  } as ExchangePlan;
}

const sentText = (plan: ExchangePlan | null): string | null => (plan === null ? null : Buffer.concat(plan.body ?? []).toString('utf8'));

describe("planWithMaxCompletionTokens for a chat client's own body", () => {
  it('renames the top-level key on the bytes as sent, wherever the pieces split', () => {
    const json = '{"model":"gpt-5.1","messages":[{"role":"user","content":"max_tokens"}], "max_tokens"\t: 32000}';
    const renamed = '{"model":"gpt-5.1","messages":[{"role":"user","content":"max_tokens"}], "max_completion_tokens": 32000}';
    for (let cut = 0; cut <= json.length; cut += 1) {
      const plan = planWithMaxCompletionTokens(nativePlan([json.slice(0, cut), json.slice(cut)]), MAX_TOKENS_REFUSAL);
      expect(sentText(plan)).toBe(renamed);
      expect(plan?.byteLength).toBe(Buffer.byteLength(renamed));
    }
  });

  it("renames a translated request's bound, which Airlock wrote first, the same way", () => {
    const sent = JSON.stringify({ max_tokens: 32000, model: 'gpt-5.1', messages: [{ role: 'user', content: 'max_tokens' }] });
    const plan = planWithMaxCompletionTokens(nativePlan([sent], { mode: 'translate' }), MAX_TOKENS_REFUSAL);
    expect(sentText(plan)).toBe(sent.replace('"max_tokens"', '"max_completion_tokens"'));
  });

  it.each([
    ['another 400', nativePlan(['{"max_tokens":5}']), { status: 400, bodyText: '{"error":{"message":"Bad.","param":"messages"}}' }],
    ['a body without max_tokens', nativePlan(['{"model":"m","max_completion_tokens":5}']), MAX_TOKENS_REFUSAL],
    ['a body naming both', nativePlan(['{"max_tokens":5,"max_completion_tokens":5}']), MAX_TOKENS_REFUSAL],
    ['a body naming both, the other as null', nativePlan(['{"max_completion_tokens":null,"max_tokens":5}']), MAX_TOKENS_REFUSAL],
    ['a body cut short', nativePlan(['{"max_tokens":5,"model":"m"']), MAX_TOKENS_REFUSAL],
    ['an endpoint that is not chat', nativePlan(['{"max_tokens":5}'], { upstreamPath: 'completions' }), MAX_TOKENS_REFUSAL],
    ['a body still arriving', nativePlan(['{"max_tokens":5}'], { arriving: {} as ExchangePlan['arriving'] }), MAX_TOKENS_REFUSAL],
  ])('leaves %s to the client', (_label, plan, answer) => {
    expect(planWithMaxCompletionTokens(plan, answer)).toBeNull();
  });
});
