import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenEstimator } from '../../../proxy/spend/tokenEstimator.ts';
import { holdTokenizer } from '../../support/heldTokenizer.ts';
import { JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A gateway that streams an answer without usage, even when asked for it: the row holds Airlock's
 * estimate, and a translated client is told that estimate, not zero. Claude Code sizes its context
 * (and arms its auto-compaction) from message_delta's cumulative usage (Anthropic's streaming docs),
 * taking its input_tokens where above zero and message_start's otherwise: a relay that left
 * message_delta without a real input count kept every conversation at a fixed size, and
 * auto-compaction never armed (MadAppGang/claudish#152). Codex decides its auto-compaction from the
 * last response's reported total_tokens (openai/codex#11132), and a backend without usage left it at 0
 * and never compacting (openai/codex#9223); response.completed's was null. claude-code-router's adapter sends 0 here too
 * (musistudio/llms anthropic.transformer.ts): a count of nothing, which no answer had.
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

async function send(path: string, body: object) {
  harness.simulator.script({ kind: 'reply', content: 'There are three files: a readme, a licence and the source.', usage: false });
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
  const events = sseData(response.body)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
  return { events, end: await ended };
}

describe('a translated stream whose gateway reported no usage, the tokenizer running', () => {
  // Counted once before, so its thread runs (it stops after 5 idle minutes).
  beforeAll(() => tokenEstimator.textTokens('warm'));

  it("Claude Code's message_delta states the row's estimate", async () => {
    const { events, end } = await send('/v1/messages', {
      model: 'claude-haiku-4-5',
      max_tokens: 256,
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    expect(end).toMatchObject({ errorClass: null, usageSource: 'estimated' });
    const delta = events.find((event) => event.type === 'message_delta') as { usage: { input_tokens: number; output_tokens: number } };
    expect(delta.usage.output_tokens).toBeGreaterThan(0);
    expect(delta.usage).toMatchObject({ input_tokens: end.usage?.inputTokens, output_tokens: end.usage?.outputTokens });
  });

  it("Codex's response.completed states the row's estimate", async () => {
    const { events, end } = await send('/v1/responses', { model: 'gpt-5-codex', input: PROMPT, store: false, stream: true });
    expect(end).toMatchObject({ errorClass: null, usageSource: 'estimated' });
    const completed = events.find((event) => event.type === 'response.completed') as {
      response: { usage: Record<string, unknown> | null };
    };
    expect(end.usage?.outputTokens).toBeGreaterThan(0);
    expect(completed.response.usage).toMatchObject({ input_tokens: end.usage?.inputTokens, output_tokens: end.usage?.outputTokens });
  });
});

describe('a translated stream whose gateway reported no usage, the tokenizer stopped', () => {
  // The tokenizer's thread loads for 0.3-0.5 s when started: the client's end must not wait for it.
  it("Claude Code's message_delta states a byte estimate at once, at least the row's", async () => {
    const release = holdTokenizer();
    const ended = harness.nextEnd();
    harness.simulator.script({ kind: 'reply', content: 'There are three files: a readme, a licence and the source.', usage: false });
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 256, stream: true, messages: [{ role: 'user', content: PROMPT }] }),
    });
    release();
    const end = await ended;
    const delta = sseData(response.body)
      .filter((data) => data !== '[DONE]')
      .map((data) => JSON.parse(data) as { type: string; usage?: { input_tokens: number; output_tokens: number } })
      .find((event) => event.type === 'message_delta');
    expect(end).toMatchObject({ errorClass: null, usageSource: 'estimated' });
    expect(delta?.usage?.output_tokens).toBeGreaterThanOrEqual(end.usage?.outputTokens ?? Number.POSITIVE_INFINITY);
    expect(delta?.usage?.input_tokens).toBeGreaterThanOrEqual(end.usage?.inputTokens ?? Number.POSITIVE_INFINITY);
  });
});
