import { describe, expect, it, vi } from 'vitest';
import { scanTopLevel } from '../../support/scanTopLevel.ts';
import { buildPlan, type PlanInput } from '../../../proxy/forward/planner.ts';
import type { ExchangePlan } from '../../../proxy/forward/plan.ts';
import { quickInputEstimate } from '../../../proxy/forward/accounting.ts';
import { parseClientBody, type ClientBody } from '../../../proxy/forward/requestBody.ts';
import { inputTokensUpperBound } from '../../../proxy/spend/estimate.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { MAX_JSON_NESTING_DEPTH, PARSE_ON_LOOP_MAX_BYTES, PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../../../proxy/contracts/defaults.ts';

/**
 * A plan lives as long as its exchange (minutes for an agent's stream), and a parsed JSON body costs
 * several times its bytes in the heap: what the budget needs of it is found while planning, and the
 * plan keeps only its bytes.
 */
const PROFILE = profileSchema.parse({
  id: 'work',
  name: 'Work',
  baseUrl: 'https://gw.example/v1',
  protocolModes: { messages: 'translate', responses: 'translate' },
});

const REQUESTS = [
  {
    name: 'a chat request sent as it came',
    path: 'chat/completions',
    protocol: 'openai' as const,
    json: { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'héllo there' }], tools: [{ type: 'function' }] },
  },
  {
    name: 'a Messages request translated to chat',
    path: 'messages',
    protocol: 'anthropic' as const,
    json: {
      model: 'claude-sonnet-4',
      max_tokens: 64,
      stream: true,
      system: 'be brief',
      messages: [{ role: 'user', content: 'héllo there' }],
    },
  },
];

function planInput(request: (typeof REQUESTS)[number], needsInputEstimate?: PlanInput['needsInputEstimate']): PlanInput {
  const bytes = Buffer.from(JSON.stringify(request.json));
  const body: ClientBody = { chunks: [bytes], byteLength: bytes.length, scan: scanTopLevel([bytes], MAX_JSON_NESTING_DEPTH) };
  const parsed = parseClientBody(body, 'application/json', {
    maxBytes: PARSE_ON_LOOP_MAX_BYTES,
    maxStructuralMarks: PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS,
    maxDepth: MAX_JSON_NESTING_DEPTH,
  });
  return {
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
    ...(needsInputEstimate ? { needsInputEstimate } : {}),
  };
}

async function planOf(input: PlanInput): Promise<ExchangePlan> {
  const plan = await buildPlan(input);
  if ('refusal' in plan) throw new Error(plan.refusal.message);
  return plan;
}

/** Every object the plan reaches through its members (bytes and functions aside). */
function reachedObjects(root: object): Set<object> {
  const reached = new Set<object>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null || Buffer.isBuffer(value) || reached.has(value)) continue;
    reached.add(value);
    for (const key of Reflect.ownKeys(value)) pending.push((value as Record<PropertyKey, unknown>)[key]);
  }
  return reached;
}

function sentChatBody(plan: ExchangePlan): unknown {
  return JSON.parse(Buffer.concat(plan.body ?? []).toString('utf8'));
}

describe('a plan keeps no parsed request for as long as its exchange runs', () => {
  it.each(REQUESTS)('$name: nothing of the request reached from the plan but its bytes', async (request) => {
    const input = planInput(request, () => true);
    const plan = await planOf(input);
    const reached = reachedObjects(plan);
    if (input.parsed.kind === 'json') expect(reached.has(input.parsed.value)).toBe(false);
    // The client's body or the chat body made of it: both carry the conversation in `messages`.
    expect([...reached].filter((object) => Array.isArray((object as { messages?: unknown }).messages))).toEqual([]);
  });

  it.each(REQUESTS)(
    '$name: a cap that needs the input estimate gets the bound of the chat body sent, found while planning',
    async (request) => {
      const plan = await planOf(planInput(request, () => true));
      const expected = inputTokensUpperBound(sentChatBody(plan));
      const parse = vi.spyOn(JSON, 'parse');
      try {
        expect(quickInputEstimate(plan)).toEqual({ tokens: expected, countRefines: true });
        expect(parse).not.toHaveBeenCalled();
      } finally {
        parse.mockRestore();
      }
    },
  );

  it.each(REQUESTS)('$name: without such a cap the bound is not worked out, and is found from the bytes if asked', async (request) => {
    const needsInputEstimate = vi.fn(() => false);
    const plan = await planOf(planInput(request, needsInputEstimate));
    expect(needsInputEstimate).toHaveBeenCalledWith({ tokenName: null, pinnedProfileId: null }, PROFILE);
    expect(plan.inputTokensBound).toBeNull();
    expect(quickInputEstimate(plan)).toEqual({ tokens: inputTokensUpperBound(sentChatBody(plan)), countRefines: true });
  });
});
