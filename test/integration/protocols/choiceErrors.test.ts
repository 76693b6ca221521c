import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * OpenRouter's answer schema gives each choice an optional `error` of its own beside
 * `finish_reason: "error"` ("error if the model finishes the request with an error"), streamed and
 * whole: https://openrouter.ai/docs/api-reference/overview (NonStreamingChoice, StreamingChoice).
 * Such a choice is a failure, not an answer that ended: the row says so, and a translated client
 * gets its protocol's error, never a clean end of a cut answer.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const ENVELOPE = { id: 'gen-1', created: 1, model: 'gpt-4o-mini', provider: 'OpenAI' };
const CHOICE_ERROR = { code: 429, message: 'Rate limit exceeded upstream' };
const event = (json: object): string => `data: ${JSON.stringify(json)}\n\n`;
const STREAM = [
  event({
    ...ENVELOPE,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }],
  }),
  event({
    ...ENVELOPE,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: 'error', error: CHOICE_ERROR }],
  }),
  'data: [DONE]\n\n',
];
const WHOLE = JSON.stringify({
  ...ENVELOPE,
  object: 'chat.completion',
  choices: [
    { index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'error', native_finish_reason: 'error', error: CHOICE_ERROR },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 0, total_tokens: 12 },
});

async function send(path: string, body: object) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
  return { response, end: await ended };
}

const MESSAGES = { model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
const RESPONSES = { model: 'gpt-5-codex', input: 'hi', store: false };

describe('a streamed choice that ends with an error of its own', () => {
  it('is a failure in the log, and an Anthropic client gets an error event of its type', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: STREAM });
    const { response, end } = await send('/v1/messages', { ...MESSAGES, stream: true });
    const events = sseData(response.body).map((data) => JSON.parse(data) as { type: string; error?: { type: string; message: string } });
    expect(events.some((streamed) => streamed.type === 'message_stop')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(events.at(-1)?.error?.message).toContain('Rate limit exceeded upstream');
    expect(end.errorClass).toBe('rate_limited');
    expect(end.errorMessage).toContain('Rate limit exceeded upstream');
    expect(findSentinel(response.body + JSON.stringify(end))).toBeNull();
  });

  it('ends a Responses client with response.failed, not response.completed', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: STREAM });
    const { response, end } = await send('/v1/responses', { ...RESPONSES, stream: true });
    const types = sseData(response.body).map((data) => (JSON.parse(data) as { type: string }).type);
    expect(types).not.toContain('response.completed');
    expect(types.at(-1)).toBe('response.failed');
    expect(end.errorClass).toBe('rate_limited');
  });
});

describe('a whole answer whose only choice ended with an error of its own', () => {
  it('is a failure in the log, and an Anthropic client gets an error of its type', async () => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: WHOLE });
    const { response, end } = await send('/v1/messages', MESSAGES);
    expect(response.status).toBe(429);
    expect(JSON.parse(response.body)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(end.errorClass).toBe('rate_limited');
    expect(end.errorMessage).toContain('Rate limit exceeded upstream');
  });
});
