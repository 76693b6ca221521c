import { describe, expect, it } from 'vitest';
import type { ProtocolAdapter } from '../../../proxy/protocols/adapter.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { isUsageOnlyChunk, usageFromChatChunk, usageFromChatResponse } from '../../../proxy/protocols/chat/usage.ts';
import { passthroughAdapter } from '../../../proxy/protocols/passthrough/adapter.ts';

describe('usageFromChatResponse', () => {
  it.each([
    {
      name: 'basic',
      json: { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
      usage: { inputTokens: 10, outputTokens: 5 },
    },
    {
      name: 'cached and reasoning details',
      json: {
        usage: {
          prompt_tokens: 100,
          completion_tokens: 50,
          prompt_tokens_details: { cached_tokens: 80 },
          completion_tokens_details: { reasoning_tokens: 30 },
        },
      },
      usage: { inputTokens: 100, outputTokens: 50, cachedInputTokens: 80, reasoningTokens: 30 },
    },
    {
      // OpenRouter's chat usage: cache writes inside prompt_tokens (openrouter.ai/docs/use-cases/usage-accounting).
      name: 'cache writes',
      json: { usage: { prompt_tokens: 194, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 100 } } },
      usage: { inputTokens: 194, outputTokens: 2, cachedInputTokens: 0, cacheWriteInputTokens: 100 },
    },
    {
      // DeepSeek: hits and misses top-level, adding up to prompt_tokens (api-docs.deepseek.com/api/create-chat-completion; BerriAI/litellm#5017).
      name: 'DeepSeek cache hits',
      json: {
        usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_cache_hit_tokens: 80, prompt_cache_miss_tokens: 20 },
      },
      usage: { inputTokens: 100, outputTokens: 5, cachedInputTokens: 80 },
    },
    {
      // A relay that also fills OpenAI's field: it is the one read (both say the same where both are right).
      name: "OpenAI's cached_tokens before DeepSeek's hits",
      json: {
        usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 80 }, prompt_cache_hit_tokens: 30 },
      },
      usage: { inputTokens: 100, outputTokens: 5, cachedInputTokens: 80 },
    },
    {
      // LiteLLM in front of Anthropic: writes as cache_write_tokens and cache_creation_tokens, split by lifetime in
      // cache_creation_token_details (litellm/types/utils.py PromptTokensDetailsWrapper and Usage).
      name: 'cache writes split by lifetime (LiteLLM)',
      json: {
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 5,
          prompt_tokens_details: {
            cached_tokens: 600,
            cache_write_tokens: 300,
            cache_creation_tokens: 300,
            cache_creation_token_details: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
          },
          cache_creation_input_tokens: 300,
          cache_read_input_tokens: 600,
        },
      },
      usage: { inputTokens: 1000, outputTokens: 5, cachedInputTokens: 600, cacheWriteInputTokens: 300, cacheWrite1hInputTokens: 200 },
    },
    {
      // Older LiteLLM: the writes only as Anthropic names them, beside the OpenAI counts.
      name: 'cache writes as a top-level cache_creation_input_tokens',
      json: {
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 600 },
          cache_creation_input_tokens: 300,
        },
      },
      usage: { inputTokens: 1000, outputTokens: 5, cachedInputTokens: 600, cacheWriteInputTokens: 300 },
    },
    {
      // Kimi (Moonshot): a top-level cached_tokens, inside prompt_tokens (platform.kimi.ai/docs/api/chat; earendil-works/pi#8075).
      name: 'Kimi cache hits',
      json: { usage: { prompt_tokens: 19, completion_tokens: 13, total_tokens: 32, cached_tokens: 12 } },
      usage: { inputTokens: 19, outputTokens: 13, cachedInputTokens: 12 },
    },
    {
      // Gemini's OpenAI-compatible endpoint: total_tokens counts the thinking completion_tokens leaves out (discuss.ai.google.dev/t/127400).
      name: 'thinking outside completion_tokens, inside total_tokens',
      json: { usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 105 } },
      usage: { inputTokens: 9, outputTokens: 96, reasoningTokens: 93 },
    },
    {
      // A Gemini translation that names it (router-for-me/CLIProxyAPI#5733): completion 0, reasoning 60, total 81.
      name: 'named thinking outside completion_tokens',
      json: { usage: { prompt_tokens: 21, completion_tokens: 0, total_tokens: 81, completion_tokens_details: { reasoning_tokens: 60 } } },
      usage: { inputTokens: 21, outputTokens: 60, reasoningTokens: 60 },
    },
    {
      // xAI counts reasoning beside completion_tokens, inside total_tokens (docs.x.ai consumption page; a real answer in Wei-Shaw/sub2api#5771).
      name: 'xAI reasoning beside completion_tokens',
      json: {
        usage: {
          prompt_tokens: 10120,
          completion_tokens: 1499,
          total_tokens: 14428,
          prompt_tokens_details: { cached_tokens: 128 },
          completion_tokens_details: { reasoning_tokens: 2809 },
        },
      },
      usage: { inputTokens: 10120, outputTokens: 4308, cachedInputTokens: 128, reasoningTokens: 2809 },
    },
    {
      name: 'a total below the parts changes nothing',
      json: { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 12 } },
      usage: { inputTokens: 10, outputTokens: 5 },
    },
    {
      // An answer with no completion has no thinking: a total above its prompt count is no output.
      name: 'embedding whose total is above its prompt tokens',
      json: { usage: { prompt_tokens: 0, total_tokens: 7 } },
      usage: { inputTokens: 0, outputTokens: 0 },
    },
    {
      name: 'embedding (no completion tokens)',
      json: { usage: { prompt_tokens: 7, total_tokens: 7 } },
      usage: { inputTokens: 7, outputTokens: 0 },
    },
    {
      name: 'null details are ignored',
      json: { usage: { prompt_tokens: 1, completion_tokens: 2, prompt_tokens_details: null } },
      usage: { inputTokens: 1, outputTokens: 2 },
    },
    { name: 'no usage', json: { choices: [] }, usage: null },
    { name: 'usage null', json: { usage: null }, usage: null },
    { name: 'string counts', json: { usage: { prompt_tokens: '10', completion_tokens: 5 } }, usage: null },
    { name: 'negative count', json: { usage: { prompt_tokens: -1, completion_tokens: 5 } }, usage: null },
    { name: 'fractional count', json: { usage: { prompt_tokens: 1.5, completion_tokens: 5 } }, usage: null },
    { name: 'malformed completion tokens', json: { usage: { prompt_tokens: 1, completion_tokens: null } }, usage: null },
    { name: 'not an object', json: 'usage', usage: null },
    { name: 'array', json: [{ usage: { prompt_tokens: 1, completion_tokens: 1 } }], usage: null },
  ])('$name', ({ json, usage }) => {
    expect(usageFromChatResponse(json)).toEqual(usage);
  });
});

describe('stream chunks', () => {
  const usageChunk = { id: 'c1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } };
  it.each([
    { name: 'usage-only chunk with empty choices', chunk: usageChunk, usageOnly: true, usage: { inputTokens: 3, outputTokens: 4 } },
    {
      name: 'usage-only chunk without choices',
      chunk: { usage: { prompt_tokens: 3, completion_tokens: 4 } },
      usageOnly: true,
      usage: { inputTokens: 3, outputTokens: 4 },
    },
    {
      name: 'usage on a chunk that also has a choice',
      chunk: { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 4 } },
      usageOnly: false,
      usage: { inputTokens: 3, outputTokens: 4 },
    },
    {
      // Moonshot streams its usage inside the finishing choice, not beside it (earendil-works/pi#2017).
      name: 'usage inside the choice (Moonshot)',
      chunk: {
        choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage: { prompt_tokens: 3, completion_tokens: 4, cached_tokens: 2 } }],
      },
      usageOnly: false,
      usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 2 },
    },
    { name: 'content delta', chunk: { choices: [{ index: 0, delta: { content: 'hi' } }] }, usageOnly: false, usage: null },
    { name: 'usage: null on every chunk', chunk: { choices: [], usage: null }, usageOnly: false, usage: null },
    { name: 'not an object', chunk: null, usageOnly: false, usage: null },
  ])('$name', ({ chunk, usageOnly, usage }) => {
    expect(isUsageOnlyChunk(chunk)).toBe(usageOnly);
    expect(usageFromChatChunk(chunk)).toEqual(usage);
  });
});

/**
 * LiteLLM states its price of a reply that did not stream in `x-litellm-response-cost`
 * (docs.litellm.ai/docs/proxy/response_headers), and of a stream in `usage.cost` (BerriAI/litellm#12689:
 * no header on a stream). Read where the chat dialect reads a JSON answer's usage, beside `usage.cost`.
 */
describe("the gateway's stated price of an answer that did not stream", () => {
  const counts = { prompt_tokens: 10, completion_tokens: 5 };
  it.each<{
    name: string;
    adapter: ProtocolAdapter;
    json: object;
    headers: Record<string, string>;
    gatewayCost: number | undefined | null;
  }>([
    {
      name: "LiteLLM's header on a chat answer",
      adapter: chatAdapter,
      json: { usage: counts },
      headers: { 'x-litellm-response-cost': '0.00042' },
      gatewayCost: 0.00042,
    },
    {
      name: 'the usage naming its cost wins over the header',
      adapter: chatAdapter,
      json: { usage: { ...counts, cost: 0.001 } },
      headers: { 'x-litellm-response-cost': '0.00042' },
      gatewayCost: 0.001,
    },
    {
      name: 'an empty header',
      adapter: chatAdapter,
      json: { usage: counts },
      headers: { 'x-litellm-response-cost': ' ' },
      gatewayCost: undefined,
    },
    {
      name: 'a header that is no number',
      adapter: chatAdapter,
      json: { usage: counts },
      headers: { 'x-litellm-response-cost': 'n/a' },
      gatewayCost: undefined,
    },
    {
      name: 'a negative header',
      adapter: chatAdapter,
      json: { usage: counts },
      headers: { 'x-litellm-response-cost': '-1' },
      gatewayCost: undefined,
    },
    { name: 'no header', adapter: chatAdapter, json: { usage: counts }, headers: {}, gatewayCost: undefined },
    {
      name: 'a header with no usage makes none',
      adapter: chatAdapter,
      json: { choices: [] },
      headers: { 'x-litellm-response-cost': '0.00042' },
      gatewayCost: null,
    },
    {
      name: "LiteLLM's header on an embeddings answer",
      adapter: passthroughAdapter,
      json: { data: [], usage: { prompt_tokens: 10 } },
      headers: { 'x-litellm-response-cost': '0.00001' },
      gatewayCost: 0.00001,
    },
  ])('$name', ({ adapter, json, headers, gatewayCost }) => {
    const { usage } = adapter.readAnswer(json, 'generate', headers);
    if (gatewayCost === null) expect(usage).toBeNull();
    else expect(usage?.gatewayCost).toBe(gatewayCost);
  });
});
