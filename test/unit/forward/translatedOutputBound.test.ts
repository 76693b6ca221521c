import { describe, expect, it } from 'vitest';
import { scanTopLevel } from '../../support/scanTopLevel.ts';
import { buildPlan, type PlanInput } from '../../../proxy/forward/planner.ts';
import type { ExchangePlan } from '../../../proxy/forward/plan.ts';
import { planWithMaxCompletionTokens } from '../../../proxy/forward/maxTokensRefusals.ts';
import { parseClientBody, type ClientBody } from '../../../proxy/forward/requestBody.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { MAX_JSON_NESTING_DEPTH, PARSE_ON_LOOP_MAX_BYTES, PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../../../proxy/contracts/defaults.ts';
import { MAX_TOKENS_REFUSAL } from '../../support/maxTokensRefusal.ts';

/**
 * The spend gate holds a translated request's output bound against caps (spend/estimate.ts): it is
 * the client's own (Anthropic's max_tokens, Responses' max_output_tokens), whichever name the chat
 * body sends it under, and a resend renamed after a 400 keeps it.
 */
const PROFILE = profileSchema.parse({
  id: 'work',
  name: 'Work',
  baseUrl: 'https://gw.example/v1',
  protocolModes: { messages: 'translate', responses: 'translate' },
});

const REQUESTS = [
  {
    path: 'messages',
    protocol: 'anthropic' as const,
    json: { model: 'gpt-5.1', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }] },
  },
  { path: 'responses', protocol: 'responses' as const, json: { model: 'gpt-5.1', max_output_tokens: 4096, input: 'hi' } },
];

async function planOf(request: (typeof REQUESTS)[number], maxTokensRefused: boolean): Promise<ExchangePlan> {
  const bytes = Buffer.from(JSON.stringify(request.json));
  const body: ClientBody = { chunks: [bytes], byteLength: bytes.length, scan: scanTopLevel([bytes], MAX_JSON_NESTING_DEPTH) };
  const parsed = parseClientBody(body, 'application/json', {
    maxBytes: PARSE_ON_LOOP_MAX_BYTES,
    maxStructuralMarks: PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS,
    maxDepth: MAX_JSON_NESTING_DEPTH,
  });
  const input: PlanInput = {
    method: 'POST',
    path: request.path,
    query: '',
    pathModel: null,
    protocol: request.protocol,
    body,
    parsed,
    contentType: 'application/json',
    identity: { tokenName: null, pinnedProfileId: null },
    target: { profile: PROFILE },
    modelRefusals: () => ({ refusedReasoningEfforts: [], maxTokensRefused }),
  };
  const plan = await buildPlan(input);
  if ('refusal' in plan) throw new Error(plan.refusal.message);
  return plan;
}

const sentBody = (plan: ExchangePlan): Record<string, unknown> => JSON.parse(Buffer.concat(plan.body ?? []).toString('utf8'));

describe("a translated request's output bound", () => {
  it.each(REQUESTS)("$path: is the client's, sent as max_tokens or as max_completion_tokens alike", async (request) => {
    for (const [maxTokensRefused, name] of [
      [false, 'max_tokens'],
      [true, 'max_completion_tokens'],
    ] as const) {
      const plan = await planOf(request, maxTokensRefused);
      expect(Object.keys(sentBody(plan))[0]).toBe(name);
      expect(plan.outputTokensBound).toBe(4096);
      expect(chatAdapter.outputTokenLimit(sentBody(plan))).toBe(4096);
    }
  });

  it.each(REQUESTS)('$path: is kept by the resend renamed after a 400', async (request) => {
    const plan = await planOf(request, false);
    const renamed = planWithMaxCompletionTokens(plan, MAX_TOKENS_REFUSAL)!;
    const { max_tokens: bound, ...rest } = sentBody(plan);
    expect(sentBody(renamed)).toEqual({ max_completion_tokens: bound, ...rest });
    expect(renamed.byteLength).toBe(Buffer.concat(renamed.body ?? []).length);
    expect(renamed.outputTokensBound).toBe(4096);
    expect(chatAdapter.outputTokenLimit(sentBody(renamed))).toBe(4096);
  });
});
