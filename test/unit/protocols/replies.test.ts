import { describe, expect, it } from 'vitest';
import { chatToAnthropicResponse } from '../../../proxy/protocols/anthropic/response.ts';
import { chatToResponsesResponse } from '../../../proxy/protocols/responses/response.ts';

function chatReply(message: Record<string, unknown>, finishReason: string, usage?: Record<string, unknown>) {
  return {
    id: 'chatcmpl-9',
    object: 'chat.completion',
    model: 'gw-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
    usage,
  };
}

const toolCall = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

describe('chatToAnthropicResponse', () => {
  it('translates text, tool calls and usage, naming the model the client asked for', () => {
    const chat = chatReply(
      { content: 'Let me check.', tool_calls: [toolCall('call_1', 'get_weather', '{"city":"Zürich 🌧"}'), toolCall('call_2', 'now', '')] },
      'tool_calls',
      { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57, prompt_tokens_details: { cached_tokens: 20 } },
    );
    const result = chatToAnthropicResponse(chat, {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'claude-sonnet-4-5',
      messageId: 'msg_fixed',
    });
    expect(result).toEqual({
      ok: true,
      notes: [],
      usage: { inputTokens: 50, outputTokens: 7, cachedInputTokens: 20 },
      body: {
        id: 'msg_fixed',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Zürich 🌧' } },
          { type: 'tool_use', id: 'call_2', name: 'now', input: {} },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 7, cache_read_input_tokens: 20 },
      },
    });
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
  ])('finish_reason %s -> stop_reason %s', (finishReason, stopReason) => {
    const result = chatToAnthropicResponse(chatReply({ content: 'x' }, finishReason), {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'm',
    });
    expect(result.ok && result.body['stop_reason']).toBe(stopReason);
    expect(result.ok && String(result.body['id'])).toMatch(/^msg_[0-9a-f]{32}$/);
  });

  // vLLM names the stop string that ended the answer in the choice's stop_reason (null for EOS,
  // a number for a stop token id: vllm/entrypoints/openai/protocol.py, ChatCompletionResponseChoice).
  it.each([
    ['END', 'stop_sequence', 'END'],
    [null, 'end_turn', null],
    [128009, 'end_turn', null],
  ])("vLLM's stop_reason %j -> stop_reason %s, stop_sequence %j", (vllmStopReason, stopReason, stopSequence) => {
    const chat = chatReply({ content: 'x' }, 'stop');
    const choice = { ...chat.choices[0], stop_reason: vllmStopReason };
    const result = chatToAnthropicResponse(
      { ...chat, choices: [choice] },
      { gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm' },
    );
    expect(result.ok && [result.body['stop_reason'], result.body['stop_sequence']]).toEqual([stopReason, stopSequence]);
  });

  it.each([
    // OpenRouter (openrouter.ai/docs/use-cases/usage-accounting) and OpenAI's newer models: writes inside prompt_tokens.
    [
      'reads and writes',
      { cached_tokens: 20, cache_write_tokens: 100 },
      { input_tokens: 80, cache_read_input_tokens: 20, cache_creation_input_tokens: 100 },
    ],
    ['writes only', { cache_write_tokens: 100 }, { input_tokens: 100, cache_creation_input_tokens: 100 }],
    [
      'writes of both lifetimes',
      { cache_write_tokens: 100, cache_creation_token_details: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 } },
      {
        input_tokens: 100,
        cache_creation_input_tokens: 100,
        cache_creation: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 },
      },
    ],
  ])('reports prompt-cache %s apart from input_tokens, as Anthropic counts them', (_name, details, shown) => {
    const usage = { prompt_tokens: 200, completion_tokens: 7, total_tokens: 207, prompt_tokens_details: details };
    const result = chatToAnthropicResponse(chatReply({ content: 'x' }, 'stop', usage), {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'm',
    });
    expect(result.ok && result.body['usage']).toEqual({ ...shown, output_tokens: 7 });
  });

  it('gives a refusal as text: Anthropic has no refusal block', () => {
    const result = chatToAnthropicResponse(chatReply({ content: null, refusal: 'I cannot do that.' }, 'stop'), {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'm',
    });
    expect(result.ok && result.body['content']).toEqual([{ type: 'text', text: 'I cannot do that.' }]);
  });

  it.each(['{"a":', '[1,2]', '"text"'])('tool arguments %s that are not a JSON object become {} with a note', (args) => {
    const result = chatToAnthropicResponse(chatReply({ content: null, tool_calls: [toolCall('c', 'edit', args)] }, 'tool_calls'), {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'm',
    });
    expect(result.ok && result.body['content']).toEqual([{ type: 'tool_use', id: 'c', name: 'edit', input: {} }]);
    expect(result.ok && result.notes).toEqual(['tool call edit: arguments were not a JSON object, sent as {}']);
  });

  it.each([{}, { choices: [] }, { choices: [{ finish_reason: 'stop' }] }, 'html'])('refuses an unreadable reply %j', (chat) => {
    expect(chatToAnthropicResponse(chat, { gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'm' })).toEqual({
      ok: false,
      message: 'the upstream reply has no choices to translate',
    });
  });
});

describe('chatToResponsesResponse', () => {
  const options = {
    gatewayTag: 'gw',
    upstreamModel: 'gw-model',
    requestedModel: 'gpt-5-codex',
    responseId: 'resp_r1',
    createdAtSec: 1_700_000_000,
  };

  it('translates text and function calls into output items with usage', () => {
    const chat = chatReply({ content: 'Done.', tool_calls: [toolCall('call_9', 'shell', '{"command":["ls"]}')] }, 'tool_calls', {
      prompt_tokens: 10,
      completion_tokens: 4,
      completion_tokens_details: { reasoning_tokens: 2 },
    });
    expect(chatToResponsesResponse(chat, options)).toEqual({
      ok: true,
      usage: { inputTokens: 10, outputTokens: 4, reasoningTokens: 2 },
      body: {
        id: 'resp_r1',
        object: 'response',
        created_at: 1_700_000_000,
        status: 'completed',
        model: 'gpt-5-codex',
        output: [
          {
            id: 'msg_r1_0',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
          },
          { id: 'fc_r1_1', type: 'function_call', status: 'completed', call_id: 'call_9', name: 'shell', arguments: '{"command":["ls"]}' },
        ],
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 4,
          output_tokens_details: { reasoning_tokens: 2 },
          total_tokens: 14,
        },
        incomplete_details: null,
        error: null,
      },
    });
  });

  it('names prompt-cache writes as OpenAI does in a Responses usage (input_tokens_details.cache_write_tokens)', () => {
    const usage = { prompt_tokens: 200, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 20, cache_write_tokens: 100 } };
    const result = chatToResponsesResponse(chatReply({ content: 'x' }, 'stop', usage), options);
    expect(result.ok && result.body['usage']).toMatchObject({
      input_tokens: 200,
      input_tokens_details: { cached_tokens: 20, cache_write_tokens: 100 },
    });
  });

  it('puts a refusal in a refusal content part', () => {
    const result = chatToResponsesResponse(chatReply({ content: null, refusal: 'I cannot do that.' }, 'stop'), options);
    expect(result.ok && result.body['output']).toEqual([
      {
        id: 'msg_r1_0',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'refusal', refusal: 'I cannot do that.' }],
      },
    ]);
  });

  it('reports a length stop as incomplete', () => {
    const result = chatToResponsesResponse(chatReply({ content: 'cut' }, 'length'), options);
    expect(result.ok && result.body).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: null,
    });
  });

  it('refuses an unreadable reply', () => {
    expect(chatToResponsesResponse({ error: { message: 'x' } }, options).ok).toBe(false);
  });
});
