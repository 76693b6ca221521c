import { describe, expect, it } from 'vitest';
import {
  bytesWithoutReasoningEffort,
  refusesReasoningEffort,
  requestWithoutRefusedEffort,
} from '../../../proxy/protocols/chat/reasoningEffort.ts';

/** OpenAI's error body, as the simulator's gatewayErrors.ts words it. */
const openAiError = (message: string, param: string | null, code: string | null): string =>
  JSON.stringify({ error: { message, type: 'invalid_request_error', param, code } });

describe('a gateway refusing reasoning_effort', () => {
  // The refusals of test/simulator/dialects.ts and gatewayErrors.ts (openai, litellm), and 400s that are not one.
  it.each<[string, number, string, boolean]>([
    [
      'OpenAI: the parameter unsupported (param named)',
      400,
      openAiError(
        "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        'reasoning_effort',
        'unsupported_parameter',
      ),
      true,
    ],
    [
      'OpenAI: a level unsupported (param named)',
      400,
      openAiError(
        "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'low', 'medium', and 'high'.",
        'reasoning_effort',
        'unsupported_value',
      ),
      true,
    ],
    [
      "OpenAI's wording without the param",
      400,
      openAiError("Unsupported parameter: 'reasoning_effort' is not supported with this model.", null, null),
      true,
    ],
    [
      'LiteLLM: UnsupportedParamsError naming it (type and param None)',
      400,
      '{"error":{"message":"litellm.UnsupportedParamsError: openai does not support parameters: [\'reasoning_effort\'], for model=gpt-4o. To drop these, set `litellm.drop_params=True`","type":"None","param":null,"code":"400"}}',
      true,
    ],
    [
      'LiteLLM: naming it among other unsupported params',
      400,
      '{"error":{"message":"litellm.UnsupportedParamsError: vertex_ai does not support parameters: [\'logit_bias\', \'reasoning_effort\'], for model=gemini-1.5-pro."}}',
      true,
    ],
    // OpenAI's older wording, for gpt-4o-mini (davidmigloz/langchain_dart#712 quotes the body).
    ['an unrecognized argument', 400, openAiError('Unrecognized request argument supplied: reasoning_effort', null, null), true],
    ['an unknown parameter, in plain text', 400, 'Unknown parameter: reasoning_effort', true],
    [
      'another parameter unsupported, reasoning_effort listed among the accepted ones',
      400,
      openAiError(
        "Unsupported parameter: 'logit_bias'. Supported parameters are: model, messages, max_tokens, reasoning_effort, stream.",
        'logit_bias',
        'unsupported_parameter',
      ),
      false,
    ],
    [
      'LiteLLM naming another parameter, reasoning_effort among those it takes',
      400,
      '{"error":{"message":"litellm.UnsupportedParamsError: openai does not support parameters: [\'logit_bias\'], for model=o3. Supported params: [\'max_tokens\', \'reasoning_effort\']"}}',
      false,
    ],
    [
      'a validation error that echoes the request',
      400,
      '{"error":{"message":"messages.0.content: field required","type":"invalid_request_error"},"request":{"model":"m","reasoning_effort":"high","messages":[{"role":"user"}]}}',
      false,
    ],
    [
      'the context length, quoting the body',
      400,
      openAiError(
        'This model\'s maximum context length is 8192 tokens, however you requested 9000 tokens. Request: {"model":"m","messages":[],"reasoning_effort":"high"} is not supported.',
        'messages',
        'context_length_exceeded',
      ),
      false,
    ],
    ['a 429 naming it', 429, '{"error":{"message":"Unsupported parameter: reasoning_effort is rate limited"}}', false],
    ['a 500 naming it', 500, 'Unsupported parameter: reasoning_effort', false],
  ])('%s (status %i)', (_name, status, bodyText, refuses) => {
    expect(refusesReasoningEffort(status, bodyText)).toBe(refuses);
  });
});

describe('bytesWithoutReasoningEffort', () => {
  it.each([
    ['{"model":"m","stream":true,"reasoning_effort":"high"}', { body: '{"model":"m","stream":true}', effort: 'high' }],
    ['{"model":"m","reasoning_effort":"xhigh"}', { body: '{"model":"m"}', effort: 'xhigh' }],
    ['{"model":"m","messages":[{"role":"user","content":",\\"reasoning_effort\\":\\"x\\"}"}]}', null],
    ['{"model":"m","stream":true}', null],
    ['{"reasoning_effort":"high","model":"m"}', null],
  ])('%s without its trailing effort is %j', (sent, expected) => {
    const without = bytesWithoutReasoningEffort(Buffer.from(sent));
    expect(without === null ? null : { body: without.body.toString('utf8'), effort: without.effort }).toEqual(expected);
  });
});

describe('the chat request again without the effort a gateway refused', () => {
  const refusal = {
    status: 400,
    bodyText: openAiError("Unsupported parameter: 'reasoning_effort' is not supported.", 'reasoning_effort', null),
  };
  const otherError = { status: 400, bodyText: openAiError("This model's maximum context length is 8192 tokens.", 'messages', null) };
  const sent = '{"model":"m","messages":[],"stream":true,"reasoning_effort":"high"}';
  it.each<[string, { status: number; bodyText: string }, string, object | null]>([
    [
      'refused: its bytes without it, and the level',
      refusal,
      sent,
      { body: '{"model":"m","messages":[],"stream":true}', refusedEffort: 'high' },
    ],
    ['another error: none', otherError, sent, null],
    ['refused, but the request sent no effort: none', refusal, '{"model":"m","messages":[]}', null],
  ])('%s', (_name, answer, body, expected) => {
    const without = requestWithoutRefusedEffort(Buffer.from(body), answer);
    expect(without === null ? null : { ...without, body: without.body.toString('utf8') }).toEqual(expected);
  });
});
