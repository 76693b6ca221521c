import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ profile: { protocolModes: { messages: 'translate', responses: 'translate' } } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const earlier = [
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
];

// Before, the last turn was dropped whole and the gateway was asked the first question again, billed.
describe('a last turn no chat message can carry, through a translated route', () => {
  it.each([
    [
      '/v1/messages',
      {
        model: 'gpt-4o-mini',
        max_tokens: 50,
        messages: [...earlier, { role: 'user', content: [{ type: 'container_upload', file_id: 'file_1' }] }],
      },
      (answer: Record<string, unknown>) => (answer['error'] as { type: string; message: string }).message,
    ],
    [
      '/v1/responses',
      { model: 'gpt-4o-mini', input: [...earlier, { role: 'user', content: [{ type: 'text', text: 'second question' }] }] },
      (answer: Record<string, unknown>) => (answer['error'] as { message: string }).message,
    ],
  ])('%s is refused in the client shape, and nothing reaches the gateway', async (path, body, messageOf) => {
    const answer = await rawRequest(`${harness.proxy.url}${path}`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    expect(answer.status, answer.body).toBe(400);
    const message = messageOf(JSON.parse(answer.body) as Record<string, unknown>);
    expect(message).toMatch(/\.2\.content holds only .* an earlier turn.*Nothing was sent to the gateway/);
    expect(harness.simulator.received).toHaveLength(0);
  });
});
