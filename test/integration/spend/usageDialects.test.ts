import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DialectName } from '../../simulator/index.ts';
import type { Fault } from '../../simulator/types.ts';
import type { Usage } from '../../simulator/chatReply.ts';
import { liteLlmResponseCost, openRouterCost } from '../../simulator/usageWording.ts';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * One reply, worded as each gateway words its usage (test/simulator/usageWording.ts), must cost
 * the same and show the client the same counts: cache reads at the cached price, thinking as
 * output, whatever field the gateway put them in. OpenAI's wording is the reference.
 */
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 2, cachedInputPer1M: 0.5, outputPer1M: 8 };
/** 400 characters: 100 prompt tokens in the simulator's count, 64 of them read from the cache. */
const PROMPT = 'a'.repeat(400);
const CACHED_TOKENS = 64;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    profile: {
      prices: [PRICE],
      modelRoutes: [
        { pattern: 'claude-*', target: 'gpt-4o-mini' },
        { pattern: 'gpt-5*', target: 'gpt-4o-mini' },
      ],
    },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

type End = Awaited<ReturnType<Harness['nextEnd']>>;

const send = async (dialect: DialectName, fault: Fault, path: string, body: string): Promise<{ body: string; end: End }> => {
  harness.simulator.useDialect(dialect);
  harness.simulator.script(fault);
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
  expect(response.status, response.body).toBe(200);
  return { body: response.body, end: await ended };
};

const reply = (cachedTokens?: number): Fault => ({
  kind: 'reply',
  content: 'The answer.',
  reasoning: 'Thinking it over, step by step, before answering.',
  ...(cachedTokens === undefined ? {} : { cachedTokens }),
});
const chat = (stream: boolean) => chatBody({ stream, messages: [{ role: 'user', content: PROMPT }] });

describe('a chat answer is priced at the counts the gateway billed, however it words them', () => {
  it('the reference: OpenAI wording, cache reads inside the prompt tokens and thinking inside the completion', async () => {
    const { end } = await send('openai', reply(CACHED_TOKENS), '/v1/chat/completions', chat(false));
    const usage = end.usage!;
    expect(usage).toMatchObject({ inputTokens: 100, cachedInputTokens: CACHED_TOKENS });
    expect(usage.reasoningTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(usage.reasoningTokens!);
    expect(end.costCredits).toBeCloseTo((36 * 2 + 64 * 0.5 + usage.outputTokens * 8) / 1e6, 12);
  });

  it.each<[DialectName, number | undefined, boolean]>([
    ['deepseek', CACHED_TOKENS, false],
    ['deepseek', CACHED_TOKENS, true],
    ['gemini', undefined, false],
    ['gemini', undefined, true],
    // Usage on a chunk of its own that still holds a choice: final once the stream says [DONE].
    ['litellm', CACHED_TOKENS, true],
    // Usage naming its own `cost` in OpenRouter's credits: priced at the profile's prices all the same.
    ['openrouter', CACHED_TOKENS, false],
    ['openrouter', CACHED_TOKENS, true],
    ['new-api', CACHED_TOKENS, true],
    ['vllm', CACHED_TOKENS, true],
  ])('%s (cached %s, stream %s)', async (dialect, cachedTokens, stream) => {
    const reference = await send('openai', reply(cachedTokens), '/v1/chat/completions', chat(stream));
    const worded = await send(dialect, reply(cachedTokens), '/v1/chat/completions', chat(stream));
    const { inputTokens, outputTokens, cachedInputTokens } = reference.end.usage!;
    expect(worded.end.usageSource).toBe('reported');
    expect(worded.end.usage).toMatchObject({ inputTokens, outputTokens, ...(cachedTokens ? { cachedInputTokens } : {}) });
    expect(worded.end.costCredits).toBeCloseTo(reference.end.costCredits!, 12);
  });
});

describe("the gateway's own statement of its charge is kept beside Airlock's price, which it does not change", () => {
  // OpenRouter states its charge in usage.cost; LiteLLM in usage.cost on a stream, else in x-litellm-response-cost (usageWording.ts).
  it.each<[DialectName, boolean, (usage: Usage) => number]>([
    ['openrouter', false, openRouterCost],
    ['openrouter', true, openRouterCost],
    ['litellm', false, liteLlmResponseCost],
    ['litellm', true, liteLlmResponseCost],
  ])('%s (stream %s)', async (dialect, stream, statedCost) => {
    const reference = await send('openai', reply(CACHED_TOKENS), '/v1/chat/completions', chat(stream));
    const worded = await send(dialect, reply(CACHED_TOKENS), '/v1/chat/completions', chat(stream));
    const { inputTokens, outputTokens } = reference.end.usage!;
    const sent: Usage = { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
    expect(worded.end.usage?.gatewayCost).toBeCloseTo(statedCost(sent), 12);
    expect(worded.end.costCredits).toBeCloseTo(reference.end.costCredits!, 12);
    expect(reference.end.usage?.gatewayCost).toBeUndefined();
  });

  it("a stream's headers say nothing of its price: they go out before its usage exists", async () => {
    // A proxy in front of LiteLLM, or a LiteLLM that sends its non-stream header on a stream too (it does not: BerriAI/litellm#12689).
    const stream = [
      'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hi."}}]}',
      'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
      'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}',
      'data: [DONE]',
    ];
    const { end } = await send(
      'litellm',
      {
        kind: 'text',
        status: 200,
        contentType: 'text/event-stream',
        text: `${stream.join('\n\n')}\n\n`,
        headers: { 'x-litellm-response-cost': '0.5' },
      },
      '/v1/chat/completions',
      chat(true),
    );
    expect(end.usageSource).toBe('reported');
    expect(end.usage).toMatchObject({ inputTokens: 12, outputTokens: 3 });
    expect(end.usage?.gatewayCost).toBeUndefined();
  });

  it.each([false, true])('OpenRouter behind a translated Messages client (stream %s)', async (stream) => {
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 256, stream, messages: [{ role: 'user', content: PROMPT }] });
    const reference = await send('openai', reply(CACHED_TOKENS), '/v1/messages', body);
    const worded = await send('openrouter', reply(CACHED_TOKENS), '/v1/messages', body);
    const { inputTokens, outputTokens } = reference.end.usage!;
    const sent: Usage = { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
    expect(worded.end.usage?.gatewayCost).toBeCloseTo(openRouterCost(sent), 12);
    expect(worded.end.costCredits).toBeCloseTo(reference.end.costCredits!, 12);
  });
});

describe("a translated client sees the gateway's counts in its own shape", () => {
  const messages = (stream: boolean) =>
    JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 256, stream, messages: [{ role: 'user', content: PROMPT }] });
  const responses = (stream: boolean) => JSON.stringify({ model: 'gpt-5-codex', input: PROMPT, stream });
  /** The usage a Messages answer ends with: the body's, or the last message_delta's. */
  const messagesUsage = (body: string, stream: boolean) =>
    stream
      ? (sseData(body)
          .map((data) => JSON.parse(data) as { type: string; usage?: Record<string, number> })
          .findLast((event) => event.type === 'message_delta')?.usage ?? null)
      : (JSON.parse(body) as { usage: Record<string, number> }).usage;
  const responsesUsage = (body: string, stream: boolean) =>
    stream
      ? (sseData(body)
          .map((data) => JSON.parse(data) as { type: string; response?: { usage: Record<string, unknown> } })
          .find((event) => event.type === 'response.completed')?.response?.usage ?? null)
      : (JSON.parse(body) as { usage: Record<string, unknown> }).usage;

  it.each([false, true])('Messages from DeepSeek: cache hits as cache reads, apart from input_tokens (stream %s)', async (stream) => {
    const { body, end } = await send('deepseek', reply(CACHED_TOKENS), '/v1/messages', messages(stream));
    const usage = end.usage!;
    expect(usage.cachedInputTokens).toBe(CACHED_TOKENS);
    expect(messagesUsage(body, stream)).toMatchObject({
      input_tokens: usage.inputTokens - CACHED_TOKENS,
      cache_read_input_tokens: CACHED_TOKENS,
      output_tokens: usage.outputTokens,
    });
  });

  it.each([false, true])('Responses from Gemini: the thinking counted as output (stream %s)', async (stream) => {
    const reference = await send('openai', reply(), '/v1/responses', responses(stream));
    const { body, end } = await send('gemini', reply(), '/v1/responses', responses(stream));
    expect(end.usage!.outputTokens).toBe(reference.end.usage!.outputTokens);
    expect(responsesUsage(body, stream)).toMatchObject({
      input_tokens: reference.end.usage!.inputTokens,
      output_tokens: reference.end.usage!.outputTokens,
    });
  });
});

describe('a stream cut before its final usage', () => {
  /** A running count on every chunk, as vLLM's continuous_usage_stats and Gemini send it, with OpenAI's cache field. */
  const running = (content: string, completionTokens: number) =>
    `data: ${JSON.stringify({
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
      usage: { prompt_tokens: 100, completion_tokens: completionTokens, prompt_tokens_details: { cached_tokens: CACHED_TOKENS } },
    })}\n\n`;

  it('is estimated from the input the gateway stated, cache reads at the cached price, not from a count of the request', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: [running('A long answer', 3), running(', cut', 5)] });
    const ended = harness.nextEnd();
    await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chat(true) });
    const end = await ended;
    expect(end).toMatchObject({ errorClass: 'stream_interrupted', usageSource: 'estimated' });
    expect(end.usage).toMatchObject({ inputTokens: 100, cachedInputTokens: CACHED_TOKENS });
    expect(end.usage!.outputTokens).toBeGreaterThanOrEqual(5);
    expect(end.costCredits).toBeCloseTo((36 * 2 + 64 * 0.5 + end.usage!.outputTokens * 8) / 1e6, 12);
  });
});
