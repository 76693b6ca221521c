import { describe, expect, it } from 'vitest';
import type { UpstreamErrorClass } from '../../../proxy/contracts/errors.ts';
import type { EndpointKind, ProtocolAdapter } from '../../../proxy/protocols/adapter.ts';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { declaredErrorClass, declaredErrorExplained, declaredFailureMessage } from '../../../proxy/protocols/declaredError.ts';
import { explainError } from '../../../proxy/core/errorClass.ts';
import { STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';
import { passthroughAdapter } from '../../../proxy/protocols/passthrough/adapter.ts';
import { responsesAdapter } from '../../../proxy/protocols/responses/adapter.ts';
import type { SseEvent } from '../../../proxy/protocols/sse.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/** The class an answer's declared error gets, or null when the answer is an answer. */
function answerClass(adapter: ProtocolAdapter, endpoint: EndpointKind, json: object): UpstreamErrorClass | null {
  const { error } = adapter.readAnswer(json, endpoint, {});
  return error === null ? null : declaredErrorClass(error);
}

const chatAnswer = { id: 'c1', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] };

describe('readAnswer: a 200 whose body is only an error, in each protocol', () => {
  it.each<[string, ProtocolAdapter, EndpointKind, object, UpstreamErrorClass | null]>([
    ['chat: an answer', chatAdapter, 'generate', chatAnswer, null],
    ['chat: an answer that also names an error is an answer', chatAdapter, 'generate', { ...chatAnswer, error: { message: 'x' } }, null],
    [
      'chat: OpenRouter after the model started, code the status (502)',
      chatAdapter,
      'generate',
      { error: { code: 502, message: 'Provider returned error', metadata: { provider_name: 'X' } } },
      'upstream_error',
    ],
    [
      'chat: OpenRouter credits (402)',
      chatAdapter,
      'generate',
      { error: { code: 402, message: 'Insufficient credits' } },
      'quota_exhausted',
    ],
    [
      'chat: OpenRouter rate limit (429)',
      chatAdapter,
      'generate',
      { error: { code: 429, message: 'Rate limit exceeded' } },
      'rate_limited',
    ],
    [
      'chat: One API of 2023, a wrong key (no status in the body)',
      chatAdapter,
      'generate',
      { error: { message: '无效的令牌', type: 'one_api_error', param: '', code: 'invalid_api_key' } },
      'auth',
    ],
    [
      'chat: One API of 2023, an empty balance',
      chatAdapter,
      'generate',
      { error: { message: '用户额度不足', type: 'one_api_error', code: 'insufficient_user_quota' } },
      'quota_exhausted',
    ],
    [
      'chat: LiteLLM, code the status as a string',
      chatAdapter,
      'generate',
      { error: { message: 'context window exceeded', type: 'None', param: null, code: '400' } },
      'bad_request',
    ],
    [
      'chat: a model with no channel (new-api wording and code)',
      chatAdapter,
      'generate',
      { error: { message: 'No available channel for model gpt-x under group default', type: 'new_api_error', code: 'model_not_found' } },
      'model_not_found',
    ],
    // OpenAI's own code and words for a prompt over the context, passed on without the 400 they came with:
    // resending the same prompt cannot succeed (gateway-spec section 7), so it is the request refused.
    [
      "chat: a context overflow in OpenAI's shape, no status",
      chatAdapter,
      'generate',
      {
        error: {
          message: 'Your input exceeds the context window of this model.',
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
      'bad_request',
    ],
    [
      'chat: a context overflow told only in words, no status',
      chatAdapter,
      'generate',
      { error: { message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens." } },
      'bad_request',
    ],
    ['chat: an error as a bare string', chatAdapter, 'generate', { error: 'upstream went away' }, 'upstream_error'],
    ['chat: choices: [] and an error', chatAdapter, 'generate', { choices: [], error: { message: 'boom' } }, 'upstream_error'],
    [
      'Messages: Anthropic overloaded_error (529)',
      anthropicAdapter,
      'generate',
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      'upstream_error',
    ],
    [
      'Messages: Anthropic rate_limit_error',
      anthropicAdapter,
      'generate',
      { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      'rate_limited',
    ],
    [
      'Messages: Anthropic authentication_error',
      anthropicAdapter,
      'generate',
      { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
      'auth',
    ],
    [
      'Messages: Anthropic billing_error (402, an empty balance)',
      anthropicAdapter,
      'generate',
      { type: 'error', error: { type: 'billing_error', message: 'Your credit balance is too low' } },
      'quota_exhausted',
    ],
    [
      'Messages: Anthropic timeout_error (504)',
      anthropicAdapter,
      'generate',
      { type: 'error', error: { type: 'timeout_error', message: 'Request timed out' } },
      'timeout_total',
    ],
    [
      'Messages: a relay answering the Messages path in OpenAI shape',
      anthropicAdapter,
      'generate',
      { error: { message: 'insufficient balance', type: 'new_api_error' } },
      'quota_exhausted',
    ],
    ['Messages: a message', anthropicAdapter, 'generate', { type: 'message', content: [], usage: {} }, null],
    ['Messages: a count', anthropicAdapter, 'count', { input_tokens: 3 }, null],
    [
      'Responses: a failed response',
      responsesAdapter,
      'generate',
      { id: 'r', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: 'boom' } },
      'upstream_error',
    ],
    [
      'Responses: a completed response carries error: null',
      responsesAdapter,
      'generate',
      { status: 'completed', output: [], error: null },
      null,
    ],
    [
      'Responses: an error without output',
      responsesAdapter,
      'generate',
      { error: { code: 'rate_limit_exceeded', message: 'x' } },
      'rate_limited',
    ],
    ['passthrough: embeddings', passthroughAdapter, 'other', { data: [], usage: { prompt_tokens: 1 } }, null],
    [
      'passthrough: an error envelope',
      passthroughAdapter,
      'other',
      { error: { code: 503, message: 'busy' }, request_id: 'r1' },
      'upstream_error',
    ],
    [
      'passthrough: a failed video task is an answer, not a gateway failure',
      passthroughAdapter,
      'other',
      { id: 't1', status: 'failed', error: { message: 'content policy' } },
      null,
    ],
  ])('%s', (_name, adapter, endpoint, json, expected) => {
    expect(answerClass(adapter, endpoint, json)).toBe(expected);
  });
});

/** What a fresh observer of this protocol makes of the events: the declared error's class, or null. */
function streamClass(adapter: ProtocolAdapter, events: SseEvent[]): UpstreamErrorClass | null {
  const observer = adapter.stream.observer(
    { onDelta: () => undefined, onModel: () => undefined, onUsage: () => undefined },
    { dropUsageOnlyChunks: false, usageAsked: true },
  );
  for (const event of events) observer.observe(event);
  return observer.upstreamError === null ? null : declaredErrorClass(observer.upstreamError);
}

const data = (json: object): SseEvent => ({ data: JSON.stringify(json) });
const named = (event: string, json: object): SseEvent => ({ event, data: JSON.stringify(json) });

describe('stream observers: a 200 stream whose event is an error, in each protocol', () => {
  it.each<[string, ProtocolAdapter, SseEvent[], UpstreamErrorClass | null]>([
    ['chat: a whole answer', chatAdapter, [data(chatAnswer), { data: '[DONE]' }], null],
    [
      'chat: vLLM, only an error then [DONE]',
      chatAdapter,
      [data({ error: { message: 'queue full', type: 'BadRequestError', param: null, code: 400 } }), { data: '[DONE]' }],
      'bad_request',
    ],
    [
      'chat: OpenRouter, the error chunk with finish_reason "error"',
      chatAdapter,
      [
        data({
          id: 'g',
          object: 'chat.completion.chunk',
          error: { code: 'server_error', message: 'Provider disconnected' },
          choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
        }),
      ],
      'upstream_error',
    ],
    [
      'chat: LiteLLM, a budget spent at the first chunk',
      chatAdapter,
      [data({ error: { message: 'Budget has been exceeded!', type: 'budget_exceeded', code: '400' } })],
      'quota_exhausted',
    ],
    [
      "chat: a context overflow in OpenAI's shape after text, no status",
      chatAdapter,
      [
        data({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Once' }, finish_reason: null }] }),
        data({ error: { message: 'Too many tokens.', type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' } }),
      ],
      'bad_request',
    ],
    [
      'Messages: Anthropic, only event: error (overloaded)',
      anthropicAdapter,
      [named('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })],
      'upstream_error',
    ],
    [
      'Messages: event: error for a rate limit',
      anthropicAdapter,
      [named('error', { type: 'error', error: { type: 'rate_limit_error', message: 'Too many' } })],
      'rate_limited',
    ],
    [
      'Responses: error event, code at the top level',
      responsesAdapter,
      [named('error', { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null })],
      'rate_limited',
    ],
    [
      'Responses: response.failed',
      responsesAdapter,
      [
        named('response.failed', {
          type: 'response.failed',
          response: { status: 'failed', error: { code: 'server_error', message: 'x' } },
        }),
      ],
      'upstream_error',
    ],
    // An event whose JSON was cut lost part of the answer (lucgagan/completions#15); white space, a named event without data, or what follows [DONE] lost nothing.
    [
      'chat: an event cut mid-JSON',
      chatAdapter,
      [{ data: '{"id":"c1","choices":[{"delta":{"content":"Tw' }, { data: '[DONE]' }],
      // A relay's copy broke (a chunk cut short), not the model: explained as a broken stream.
      'stream_interrupted',
    ],
    ['chat: an event that is plain text', chatAdapter, [{ data: 'upstream timed out' }], 'upstream_error'],
    ['chat: an empty data line, a named event without data', chatAdapter, [{ data: ' ' }, { event: 'ping', data: '' }], null],
    ['chat: text after [DONE]', chatAdapter, [{ data: '[DONE]' }, { data: 'bye' }], null],
    // vLLM sends a failure inside a 200 stream on /v1/completions as on chat (litellm #40578).
    ['passthrough: an error event, as chat reads it', passthroughAdapter, [data({ error: { message: 'x' } })], 'upstream_error'],
  ])('%s', (_name, adapter, events, expected) => {
    expect(streamClass(adapter, events)).toBe(expected);
  });
});

describe('declaredFailureMessage: the cause and the fix, never the key', () => {
  const echoed = { message: `Incorrect API key provided: ${SENTINEL_KEY}`, code: 'invalid_api_key', type: null, status: null };

  it.each<[string, Parameters<typeof declaredFailureMessage>[2], RegExp]>([
    ['a body', 'body', /^The gateway answered HTTP 200, but its body is an error, not an answer\./],
    ['a stream', 'stream', /^The gateway answered HTTP 200, but its stream carried an error, not an answer\./],
    [
      'a stream after part of the answer',
      'stream after output',
      /^The gateway answered HTTP 200, but its stream ended with an error after part of the answer\./,
    ],
  ])('%s', (_name, place, opening) => {
    const message = declaredFailureMessage(declaredErrorClass(echoed), echoed, place, [SENTINEL_KEY]);
    expect(message).toMatch(opening);
    // The class's cause and fix, and what the gateway said, masked.
    expect(message).toContain('The gateway refused the key');
    expect(message).toContain('Paste the key again');
    // A key error inside a 200 may be the relay's own: the message says so before the fix for the user's key.
    expect(message).toMatch(/often the gateway’s own key for the provider behind it, not yours.*The gateway refused the key/);
    expect(message).toContain('Incorrect API key provided');
    expect(findSentinel(message)).toBeNull();
  });
});

/**
 * The gateway-spec's rule 3 (section 7) counts "a fee deducted without a full reply" among what a retry
 * must not repeat unknowingly. A stream that broke after it began ran the model: the words say the
 * gateway may have charged for the broken answer and that a retry is charged again, and never that it
 * was charged (Airlock cannot know). Breaks before any answer say nothing of a fee.
 */
describe('a broken answer may have been charged: the words say so, and only so', () => {
  const MAY_HAVE_CHARGED = /the gateway may have charged for the part of the answer it sent/;
  const CLAIMS_A_CHARGE = /\b(was|were|has been|is) (charged|billed)\b/;

  it('a chat event cut mid-JSON: the client error and the log message say the gateway may have charged for it', () => {
    const observer = chatAdapter.stream.observer(
      { onDelta: () => undefined, onModel: () => undefined, onUsage: () => undefined },
      { dropUsageOnlyChunks: false, usageAsked: true },
    );
    observer.observe({ data: '{"id":"c1","choices":[{"delta":{"content":"Tw' });
    const declared = observer.upstreamError;
    if (declared === null) throw new Error('the cut event was not read as an error');
    const errorClass = declaredErrorClass(declared);
    expect(errorClass).toBe('stream_interrupted');
    for (const words of [
      declaredErrorExplained(errorClass, declared, []),
      declaredFailureMessage(errorClass, declared, 'stream after output', []),
    ]) {
      expect(words).toMatch(MAY_HAVE_CHARGED);
      expect(words).not.toMatch(CLAIMS_A_CHARGE);
    }
  });

  it.each<[string, ReturnType<typeof explainError>, boolean]>([
    ['a stream that broke', explainError('stream_interrupted'), true],
    ['a stream the gateway ended early', explainError('stream_interrupted', STREAM_ENDED_EARLY_CODE), true],
    ['a gateway never reached', explainError('network'), false],
    ['a connection that never opened', explainError('timeout_connect'), false],
  ])('%s', (_name, explained, mayHaveCharged) => {
    if (mayHaveCharged) expect(explained.fix).toMatch(MAY_HAVE_CHARGED);
    else expect(explained.fix).not.toMatch(/charged|billed|fee/);
    expect(explained.fix).not.toMatch(CLAIMS_A_CHARGE);
  });
});
