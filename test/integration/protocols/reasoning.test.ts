import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import type { Dialect } from '../../simulator/dialect.ts';
import type { Harness } from '../../support/proxyHarness.ts';
import { sdkClients, startReasoningHarness } from '../../support/reasoningHarness.ts';

/**
 * A reasoning model's thinking, streamed by the gateway as `reasoning_content` (vLLM, DeepSeek) or
 * `reasoning` (OpenRouter, newer vLLM), reaches translated clients as their protocol carries it:
 * Anthropic thinking blocks, Responses reasoning items (their summary, which Responses clients
 * show). The simulator's thinking for such a model
 * is "Thinking about: <the last user text>".
 */
const PROMPT = 'Why is the sky blue?';
const THINKING = `Thinking about: ${PROMPT}`;

let harness: Harness;

beforeAll(async () => {
  harness = await startReasoningHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const { anthropic, openai } = sdkClients(() => harness);

const REASONING_DIALECTS: [string, Dialect][] = [
  ['reasoning_content (vllm)', DIALECTS.vllm],
  ['reasoning (openrouter)', { ...DIALECTS.openrouter, stream: { ...DIALECTS.openrouter.stream, reasoningField: 'reasoning' } }],
];

describe.each(REASONING_DIALECTS)('thinking sent as %s', (_name, dialect) => {
  beforeAll(() => harness.simulator.useDialect(dialect));

  it('becomes the thinking block of an Anthropic message, before its text', async () => {
    const message = await anthropic().messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: PROMPT }],
    });
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: THINKING });
  });

  it('streams as a thinking block the Anthropic SDK assembles', async () => {
    const stream = anthropic().messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: PROMPT }],
    });
    let thinkingDeltas = '';
    stream.on('thinking', (delta) => {
      thinkingDeltas += delta;
    });
    const message = await stream.finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: THINKING });
    expect(thinkingDeltas).toBe(THINKING);
  });

  it('becomes a reasoning item of a Responses answer, before its message', async () => {
    const response = await openai().responses.create({ model: 'gpt-5-codex', input: PROMPT, store: false });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: THINKING }] });
  });

  it('streams as reasoning events the OpenAI SDK assembles into the final response', async () => {
    const stream = openai().responses.stream({ model: 'gpt-5-codex', input: PROMPT, store: false });
    let reasoningDeltas = '';
    for await (const event of stream) if (event.type === 'response.reasoning_summary_text.delta') reasoningDeltas += event.delta;
    const response = await stream.finalResponse();
    expect(reasoningDeltas).toBe(THINKING);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: THINKING }] });
  });
});
