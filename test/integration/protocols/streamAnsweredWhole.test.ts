import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelAliases: { 'gpt-5-codex': 'qwen-plus' } } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

/** A whole chat completion, as a gateway that ignores `stream: true` answers it. */
const WHOLE_COMPLETION = JSON.stringify({
  id: 'chatcmpl-whole',
  object: 'chat.completion',
  model: 'qwen-plus',
  choices: [{ index: 0, message: { role: 'assistant', content: 'whole-answer' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
});

describe('a streamed Responses request the gateway answers whole', () => {
  it('reaches the client as the event stream it asked for, ending with response.completed', async () => {
    harness.simulator.script({ kind: 'text', status: 200, text: WHOLE_COMPLETION, contentType: 'application/json' });
    const response = await fetch(`${harness.proxy.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: 'Bearer alk_client', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5-codex', input: 'hi', stream: true, store: false }),
    });
    const body = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(body).toContain('event: response.completed');
    expect(body).toContain('whole-answer');
  });
});
