import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenEstimator } from '../../../proxy/spend/tokenEstimator.ts';
import { holdTokenizer } from '../../support/heldTokenizer.ts';
import { JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A gateway that answers a whole (non-streamed) completion without usage: a translated client is told
 * the row's estimate, as a stream's is (unreportedUsage.test.ts cites why Claude Code and Codex need
 * it: both size their context and arm their auto-compaction by the answer's usage), not Messages' 0 or
 * Responses' null. Nor when the gateway answers a stream request whole, relayed as the stream asked for.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());
afterEach(() => vi.restoreAllMocks());

const PROMPT = 'Tell me about the files in this directory and what each is for.';
const ANSWER = 'There are three files: a readme, a licence and the source.';
const MESSAGES_BODY = { model: 'claude-haiku-4-5', max_tokens: 256, messages: [{ role: 'user', content: PROMPT }] };
type AnthropicUsage = { input_tokens: number; output_tokens: number };

/** The client's answer (its body's text) and the request's row at its end. */
async function send(path: string, body: object) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
  expect(response.status, response.body).toBe(200);
  return { body: response.body, end: await ended };
}

describe('a whole translated answer whose gateway reported no usage, the tokenizer running', () => {
  // Counted once before, so its thread runs (it stops after 5 idle minutes).
  beforeAll(() => tokenEstimator.textTokens('warm'));

  it("Claude Code's usage states the row's estimate", async () => {
    harness.simulator.script({ kind: 'reply', content: ANSWER, usage: false });
    const { body, end } = await send('/v1/messages', MESSAGES_BODY);
    expect(end).toMatchObject({ errorClass: null, usageSource: 'estimated' });
    const usage = (JSON.parse(body) as { usage: AnthropicUsage }).usage;
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage).toMatchObject({ input_tokens: end.usage?.inputTokens, output_tokens: end.usage?.outputTokens });
  });

  it("Codex's usage states the row's estimate", async () => {
    harness.simulator.script({ kind: 'reply', content: ANSWER, usage: false });
    const { body, end } = await send('/v1/responses', { model: 'gpt-5-codex', input: PROMPT, store: false });
    expect(end).toMatchObject({ errorClass: null, usageSource: 'estimated' });
    const usage = (JSON.parse(body) as { usage: Record<string, unknown> | null }).usage;
    expect(end.usage?.outputTokens).toBeGreaterThan(0);
    expect(usage).toMatchObject({ input_tokens: end.usage?.inputTokens, output_tokens: end.usage?.outputTokens });
  });

  it("a stream the gateway answered whole: Claude Code's message_delta states the row's estimate", async () => {
    // A gateway that ignores `stream: true` (streamAnsweredWhole.test.ts), here without usage.
    const completion = {
      id: 'chatcmpl-whole',
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
    };
    harness.simulator.script({ kind: 'text', status: 200, text: JSON.stringify(completion), contentType: 'application/json' });
    const { body, end } = await send('/v1/messages', { ...MESSAGES_BODY, stream: true });
    expect(end).toMatchObject({ errorClass: null, usageSource: 'estimated' });
    const delta = sseData(body)
      .map((data) => JSON.parse(data) as { type: string; usage?: AnthropicUsage })
      .find((event) => event.type === 'message_delta');
    expect(end.usage?.outputTokens).toBeGreaterThan(0);
    expect(delta?.usage).toMatchObject({ input_tokens: end.usage?.inputTokens, output_tokens: end.usage?.outputTokens });
  });
});

describe('a whole translated answer whose gateway reported no usage, the tokenizer stopped', () => {
  // The tokenizer's thread loads for 0.3-0.5 s when started: the client's answer must not wait for it.
  it("Claude Code's usage states a byte estimate at once, at least the row's", async () => {
    const release = holdTokenizer();
    harness.simulator.script({ kind: 'reply', content: ANSWER, usage: false });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(MESSAGES_BODY),
    });
    release();
    const end = await ended;
    const usage = (JSON.parse(response.body) as { usage: AnthropicUsage }).usage;
    expect(end).toMatchObject({ errorClass: null, usageSource: 'estimated' });
    expect(usage.output_tokens).toBeGreaterThanOrEqual(end.usage?.outputTokens ?? Number.POSITIVE_INFINITY);
    expect(usage.input_tokens).toBeGreaterThanOrEqual(end.usage?.inputTokens ?? Number.POSITIVE_INFINITY);
  });
});
