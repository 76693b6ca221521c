import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

async function send(body: string) {
  const ended = harness.nextEnd();
  // Well under the harness's timeouts: an answer Airlock never finishes fails here, not at the test's limit.
  const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body,
    timeoutMs: 5000,
  });
  return { response, end: await ended };
}

const chatAnswer = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 },
});

describe('answers that are unusual but legal HTTP', () => {
  it('a 103 Early Hints before the 200 is read past: the 200 is the answer', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: chatAnswer,
      earlyHints: { link: '</style.css>; rel=preload; as=style' },
    });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ choices: [{ message: { content: 'hello' } }] });
    expect(end.errorClass).toBeNull();
    expect(end.usage).toMatchObject({ inputTokens: 7, outputTokens: 5 });
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});
