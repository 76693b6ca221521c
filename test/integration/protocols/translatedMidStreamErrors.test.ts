import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL, startMatrix, type MatrixHarnesses } from '../../support/faultMatrix.ts';
import { streamThroughAirlock } from '../../support/translatedClients.ts';

/**
 * A gateway's error event inside a 200 chat stream (`data: {"error": {...}}`, as vLLM, sglang and
 * LiteLLM's proxy send one: litellm #40578, #25505, #6629), under translation. Claude Code's SDK must
 * throw an error of the type Anthropic gives the failure (it retries only `overloaded_error`) and never
 * see `message_stop`; Codex must read a `response.failed` whose code is one it acts on
 * (codex-rs/codex-api/src/sse/responses.rs: `context_length_exceeded` is a full context window,
 * `insufficient_quota` a spent balance, `rate_limit_exceeded` a wait; any other code a dropped
 * stream it sends again) and never `response.completed`, even when `[DONE]` follows the error. The
 * row says the error came, and bills no more output than came before it. errorAfterOutput.test.ts
 * and sseFraming.test.ts cover OpenRouter's error chunk and a rate limit for Anthropic clients.
 */
let matrix: MatrixHarnesses;
beforeAll(async () => {
  matrix = await startMatrix();
});
afterAll(async () => {
  await matrix.close();
});

const ENVELOPE = { id: 'chatcmpl-mid', object: 'chat.completion.chunk', created: 1, model: MODEL };
const chunk = (delta: object): string =>
  `data: ${JSON.stringify({ ...ENVELOPE, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
const errorEvent = (error: object): string => `data: ${JSON.stringify({ error })}\n\n`;
const DONE = 'data: [DONE]\n\n';

const TEXT = 'Here is the first part.';
const AFTER_TEXT = [chunk({ role: 'assistant', content: '' }), chunk({ content: TEXT })];
const MID_TOOL_CALL = [
  chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
];

const VLLM_CONTEXT =
  "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.";

interface MidStreamCase {
  name: string;
  chunks: string[];
  /** The output the client had before the error. */
  text: string;
  toolInput: string;
  /** None for a 402: see translatedGatewayErrors.test.ts. */
  anthropicType?: string;
  /** Words an Anthropic client must read (Claude Code knows an overflow only by "prompt is too long"). */
  anthropicSays?: string;
  responsesCode: string;
}

const CASES: MidStreamCase[] = [
  {
    name: "LiteLLM's rate limit after text, then [DONE]",
    chunks: [
      ...AFTER_TEXT,
      errorEvent({ message: 'litellm.RateLimitError: Rate limit reached, try again in 20s', type: 'None', param: 'None', code: '429' }),
      DONE,
    ],
    text: TEXT,
    toolInput: '',
    anthropicType: 'rate_limit_error',
    responsesCode: 'rate_limit_exceeded',
  },
  {
    name: "an overloaded model's 503 after text",
    chunks: [...AFTER_TEXT, errorEvent({ message: 'The model is overloaded. Please try again later.', type: 'server_error', code: 503 })],
    text: TEXT,
    toolInput: '',
    anthropicType: 'overloaded_error',
    responsesCode: 'server_error',
  },
  {
    name: "vLLM's server error mid tool-call arguments, then [DONE]",
    chunks: [
      ...MID_TOOL_CALL,
      errorEvent({ object: 'error', message: 'CUDA out of memory', type: 'InternalServerError', param: null, code: 500 }),
      DONE,
    ],
    text: '',
    toolInput: '{"path":',
    anthropicType: 'api_error',
    responsesCode: 'server_error',
  },
  {
    name: "an empty balance's 402 after text",
    chunks: [
      ...AFTER_TEXT,
      errorEvent({ code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits' }),
    ],
    text: TEXT,
    toolInput: '',
    responsesCode: 'insufficient_quota',
  },
  {
    // A relay that opens its stream before the model refuses the prompt (LiteLLM's first-chunk errors, litellm #6629).
    name: "vLLM's context overflow as the stream's first event",
    chunks: [errorEvent({ object: 'error', message: VLLM_CONTEXT, type: 'BadRequestError', param: null, code: 400 }), DONE],
    text: '',
    toolInput: '',
    anthropicType: 'invalid_request_error',
    anthropicSays: 'prompt is too long: 40000 tokens > 32768 maximum',
    responsesCode: 'context_length_exceeded',
  },
];

describe.each(CASES)('$name, translated', (midStream) => {
  it('an Anthropic client gets an error event of its type, and no message_stop', async () => {
    const harness = matrix.translate;
    harness.simulator.reset();
    harness.simulator.script({ kind: 'bodyChunks', chunks: midStream.chunks });
    const ended = harness.nextEnd();
    const outcome = await streamThroughAirlock(harness, 'messages', MODEL);
    const end = await ended;
    expect(outcome.otherError).toBeNull();
    expect(outcome.apiError).not.toBeNull();
    if (midStream.anthropicType !== undefined) expect(outcome.apiError?.type).toBe(midStream.anthropicType);
    if (midStream.anthropicSays !== undefined) expect(outcome.apiError?.message).toContain(midStream.anthropicSays);
    expect(outcome.eventTypes).not.toContain('message_stop');
    expect(outcome.text).toBe(midStream.text);
    expect(outcome.toolInput).toBe(midStream.toolInput);
    expect(end.errorClass).not.toBeNull();
    const sentChars = midStream.text.length + midStream.toolInput.length;
    expect(end.usage?.outputTokens ?? 0).toBeLessThanOrEqual(sentChars);
  });

  it('a Responses client gets response.failed with a code Codex acts on, and no response.completed', async () => {
    const harness = matrix.translate;
    harness.simulator.reset();
    harness.simulator.script({ kind: 'bodyChunks', chunks: midStream.chunks });
    const ended = harness.nextEnd();
    const outcome = await streamThroughAirlock(harness, 'responses', MODEL);
    const end = await ended;
    expect(outcome.otherError).toBeNull();
    expect(outcome.failed?.code).toBe(midStream.responsesCode);
    expect(outcome.eventTypes).not.toContain('response.completed');
    expect(outcome.text).toBe(midStream.text);
    expect(outcome.toolInput).toBe(midStream.toolInput);
    expect(end.errorClass).not.toBeNull();
    const sentChars = midStream.text.length + midStream.toolInput.length;
    expect(end.usage?.outputTokens ?? 0).toBeLessThanOrEqual(sentChars);
  });
});
