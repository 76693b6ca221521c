import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A stream whose model wrote no text, only a tool call or its reasoning, before the gateway's
 * error: OpenRouter's mid-stream error, a chunk with `error` {code, message} and finish_reason
 * "error" (https://openrouter.ai/docs/api/reference/errors-and-debugging, "errors during
 * streaming"). A tool call and reasoning are part of the answer (billed as output), so the row
 * says the stream ended with an error after part of it, not that it carried only an error.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const ENVELOPE = { id: 'gen-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
const event = (json: object): string => `data: ${JSON.stringify(json)}\n\n`;
const chunk = (delta: object): string => event({ ...ENVELOPE, choices: [{ index: 0, delta, finish_reason: null }] });
const OPENROUTER_ERROR = event({
  ...ENVELOPE,
  error: { code: 502, message: 'Provider returned error' },
  choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
});

const FIRST_PARTS = [
  [
    'a tool call',
    [
      chunk({
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"a.ts"}' } }] }),
    ],
  ],
  ['reasoning', [chunk({ role: 'assistant', reasoning: 'The user wants the file read.' })]],
] as const;

const AFTER_PART = /^The gateway answered HTTP 200, but its stream ended with an error after part of the answer\./;

async function send(path: string, body: string) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
  return { events: sseData(response.body), end: await ended };
}

const MESSAGES = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
const RESPONSES = JSON.stringify({ model: 'gpt-5-codex', input: 'hi', store: false, stream: true });

describe.each(FIRST_PARTS)('a stream whose first part is %s, then an error', (_part, firstChunks) => {
  const frames = [...firstChunks, OPENROUTER_ERROR];

  it('a chat client gets the error as sent; the row says it came after part of the answer', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { events, end } = await send('/v1/chat/completions', chatBody({ stream: true }));
    expect(events.at(-1)).toContain('Provider returned error');
    expect(end.errorClass).toBe('upstream_error');
    expect(end.errorMessage).toMatch(AFTER_PART);
  });

  it('an Anthropic client gets an error event; the row says it came after part of the answer', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { events, end } = await send('/v1/messages', MESSAGES);
    const last = JSON.parse(events.at(-1) ?? '{}') as { type?: string; error?: { message?: string } };
    expect(last.type).toBe('error');
    expect(last.error?.message).toContain('Provider returned error');
    expect(end.errorMessage).toMatch(AFTER_PART);
  });

  it('a Responses client gets response.failed; the row says it came after part of the answer', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { events, end } = await send('/v1/responses', RESPONSES);
    const last = JSON.parse(events.at(-1) ?? '{}') as { type?: string; response?: { error?: { message?: string } } };
    expect(last.type).toBe('response.failed');
    expect(last.response?.error?.message).toContain('Provider returned error');
    expect(end.errorMessage).toMatch(AFTER_PART);
  });
});

describe('a stream whose first chunk says nothing (its role, empty content), then an error', () => {
  it('is logged as carrying an error, not an answer', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: [chunk({ role: 'assistant', content: '' }), OPENROUTER_ERROR] });
    const { end } = await send('/v1/messages', MESSAGES);
    expect(end.errorMessage).toMatch(/^The gateway answered HTTP 200, but its stream carried an error, not an answer\./);
  });
});
