import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/** Anthropic's own tool types, sent by the official SDK through Airlock's translation to a chat gateway. */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'claude-*', target: 'deepseek-chat' }] } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const client = () => new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });

describe('the official Anthropic SDK with a server tool forced through a chat gateway', () => {
  it('is refused before the gateway, in words that do not ask for a retry that cannot help', async () => {
    const ended = harness.nextEnd();
    const refusal = client().messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Perform a web search for the query: airlock' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 8 }],
      tool_choice: { type: 'tool', name: 'web_search' },
    });
    const error = await refusal.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } };
    const message = body.error.message;
    expect(message).toMatch(/web_search_20250305.*runs only at Anthropic.*Nothing was sent to the gateway\.$/);
    expect(message).not.toMatch(/retry/i);
    expect((await ended).status).toBe(400);
    expect(harness.simulator.received).toEqual([]);
  });
});
