import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityCheckResponse } from '../../../../proxy/contracts/models.ts';
import type { ProfileTestResult } from '../../../../proxy/contracts/profileViews.ts';
import { DEFAULT_MODEL_IDS } from '../../../simulator/models.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

/**
 * The window's Test and capability check against a model that takes only `max_completion_tokens`
 * (OpenAI's reasoning models: the simulator's openai dialect refuses `max_tokens` as OpenAI does).
 * Claude Code and Codex worked through Airlock with such a model (their requests are renamed after
 * the 400), while Test said the model failed and every capability read as missing.
 */
const REASONING_MODEL = 'gpt-5.1';

let harness: ControlHarness;
beforeAll(async () => {
  harness = await startControlHarness({
    simulator: {
      dialect: 'openai',
      models: [...DEFAULT_MODEL_IDS, REASONING_MODEL],
      modelCapabilities: { [REASONING_MODEL]: { maxTokens: false } },
    },
  });
  await setUpMainProfileAndAgent(harness);
});
afterAll(async () => {
  await harness?.close();
});
beforeEach(() => harness.simulator.reset());

const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });

describe('a model that refuses max_tokens', () => {
  it('passes the profile test, sent again with max_completion_tokens after the 400', async () => {
    const test = await harness.json<ProfileTestResult>('/profiles/main/test', post({ model: REASONING_MODEL }));
    expect(test.steps.map((step) => [step.name, step.ok])).toEqual([
      ['models', true],
      ['chat', true],
    ]);
    const chats = harness.simulator.received.filter((request) => request.path === '/v1/chat/completions');
    expect(
      chats.map((request) => Object.keys(JSON.parse(request.body.toString()) as object).filter((key) => key.startsWith('max_'))),
    ).toEqual([['max_tokens'], ['max_completion_tokens']]);
  });

  it('has its chat, stream, tools and images found by the capability check', async () => {
    const checked = await harness.json<CapabilityCheckResponse>(`/models/${REASONING_MODEL}/capabilities`, { method: 'POST' });
    const supported = Object.fromEntries(checked.capabilities.map((badge) => [badge.capability, badge.supported]));
    expect(supported).toMatchObject({ chat: true, stream: true, tools: true, image_input: true });
  });

  it('leaves a model that takes max_tokens to one request', async () => {
    const test = await harness.json<ProfileTestResult>('/profiles/main/test', post({ model: 'gpt-4o-mini' }));
    expect(test.steps[1]).toMatchObject({ ok: true });
    expect(harness.simulator.received.filter((request) => request.path === '/v1/chat/completions')).toHaveLength(1);
  });
});
