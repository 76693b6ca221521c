import { describe, expect, it } from 'vitest';
import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import { promptTooLongWords } from '../../../proxy/protocols/anthropic/promptTooLong.ts';
import { responsesFailureCode } from '../../../proxy/protocols/responses/errors.ts';

describe("a gateway's context overflow in Anthropic's words", () => {
  it.each<[string, ErrorClass, { upstreamMessage?: string; errorCode?: string }, string | null]>([
    [
      'OpenAI and vLLM: the numbers are read',
      'bad_request',
      { upstreamMessage: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages)." },
      'prompt is too long: 9000 tokens > 8192 maximum.',
    ],
    [
      "OpenRouter's 'about N'",
      'bad_request',
      { upstreamMessage: "This endpoint's maximum context length is 131072 tokens. However, you requested about 200000 tokens." },
      'prompt is too long: 200000 tokens > 131072 maximum.',
    ],
    [
      "OpenAI's code alone",
      'bad_request',
      { upstreamMessage: 'Your input exceeds the limit.', errorCode: 'context_length_exceeded' },
      'prompt is too long.',
    ],
    [
      "LiteLLM's exception name alone",
      'bad_request',
      { upstreamMessage: 'litellm.ContextWindowExceededError: too big' },
      'prompt is too long.',
    ],
    // Anthropic's own 400 (a native gateway) is quoted as it is: Claude Code reads it there.
    ['already in Anthropic words', 'bad_request', { upstreamMessage: 'prompt is too long: 210118 tokens > 200000 maximum' }, null],
    ['another refusal', 'bad_request', { upstreamMessage: 'temperature must be at most 2' }, null],
    ['another class', 'upstream_error', { upstreamMessage: 'maximum context length is 10 tokens. However, you requested 20 tokens' }, null],
  ])('%s', (_name, errorClass, detail, expected) => {
    expect(promptTooLongWords(errorClass, detail)).toBe(expected);
  });
});

describe("a gateway's context overflow as the code of a translated Responses stream's failure", () => {
  it.each<[string, ErrorClass, { upstreamMessage?: string; errorCode?: string }, string]>([
    [
      "vLLM's words",
      'bad_request',
      { upstreamMessage: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens." },
      'context_length_exceeded',
    ],
    [
      "OpenAI's code",
      'bad_request',
      { upstreamMessage: 'Your input exceeds the limit.', errorCode: 'context_length_exceeded' },
      'context_length_exceeded',
    ],
    [
      "Anthropic's words from a relay in front of Claude",
      'bad_request',
      { upstreamMessage: 'prompt is too long: 210118 tokens > 200000 maximum' },
      'context_length_exceeded',
    ],
    ['another refusal', 'bad_request', { upstreamMessage: 'temperature must be at most 2' }, 'server_error'],
    ['a rate limit', 'rate_limited', { upstreamMessage: 'maximum context length is 10 tokens' }, 'rate_limit_exceeded'],
    ['an empty balance', 'quota_exhausted', {}, 'insufficient_quota'],
  ])('%s', (_name, errorClass, said, expected) => {
    expect(responsesFailureCode(errorClass, said)).toBe(expected);
  });
});
