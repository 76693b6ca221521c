import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A chat stream with an event whose JSON was cut (a relay or proxy that lost part of a chunk:
 * lucgagan/completions#15 shows `data:` lines from OpenAI cut mid-JSON, chatboxai/chatbox#153 the
 * same through a reverse proxy). The text in it is lost. The OpenAI SDKs throw at such an event
 * (Stream parses every event's data as JSON), so a chat client learns it; a translated client
 * (Claude Code, Codex) must learn it too, not get an answer with a hole in it as a success, and
 * the row must say the answer is broken.
 */
let harness: Harness;
beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const chunk = (delta: object, finish: string | null = null, usage?: object): string =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });
const USAGE = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
/** The second event's JSON ends inside its text, which holds the key: the row quotes the event masked. */
const CUT_EVENT = chunk({ content: `Two ${SENTINEL_KEY} ` }).slice(0, 120);
const FRAMES = [
  `data: ${chunk({ role: 'assistant', content: 'One ' })}\n\n`,
  `data: ${CUT_EVENT}\n\n`,
  `data: ${chunk({ content: 'Three' })}\n\n`,
  `data: ${chunk({}, 'stop', USAGE)}\n\n`,
  'data: [DONE]\n\n',
];
const NOT_JSON = /an event that is not JSON/;

describe('a chat stream with an event cut mid-JSON', () => {
  it('an Anthropic client gets an error, not a whole answer with a hole; the row says the answer broke', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: FRAMES });
    const ended = harness.nextEnd();
    const client = new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    const failure = await stream.finalMessage().then(
      () => null,
      (error: unknown) => error as Error,
    );
    const end = await ended;
    expect(failure?.message).toMatch(NOT_JSON);
    // A relay's copy broke, not the model: explained as a broken stream, not as the model's fault.
    expect(end.errorClass).toBe('stream_interrupted');
    expect(end.errorMessage).toMatch(NOT_JSON);
    expect(end.errorMessage).not.toMatch(/no valid answer from the model/);
    expect(failure?.message).not.toMatch(/no valid answer from the model/);
    expect(findSentinel(JSON.stringify(end))).toBeNull();
    expect(findSentinel(failure?.message ?? '')).toBeNull();
  });

  it('a Responses client gets response.failed, not response.completed', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: FRAMES });
    const ended = harness.nextEnd();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
    const types: string[] = [];
    for await (const event of await client.responses.create({ model: 'gpt-5', input: 'hi', store: false, stream: true }))
      types.push(event.type);
    expect(types).toContain('response.failed');
    expect(types).not.toContain('response.completed');
    expect((await ended).errorMessage).toMatch(NOT_JSON);
  });

  it('an Anthropic client asking for a whole answer gets an error', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: FRAMES });
    const ended = harness.nextEnd();
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: false, messages: [{ role: 'user', content: 'hi' }] });
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.body).toMatch(NOT_JSON);
    expect((await ended).errorMessage).toMatch(NOT_JSON);
  });

  it('a chat client gets the events as sent (its SDK throws at the cut one), and the row says the answer broke', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: FRAMES });
    const ended = harness.nextEnd();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
    let text = '';
    const failure = await (async () => {
      for await (const part of await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }))
        text += part.choices[0]?.delta.content ?? '';
    })().then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(text).toBe('One ');
    expect(failure).not.toBeNull();
    expect((await ended).errorMessage).toMatch(NOT_JSON);
  });

  it('bills the estimate for an answer whose first event was cut, as for any answer that broke off: the model ran', async () => {
    const frames = [`data: ${CUT_EVENT}\n\n`, `data: ${chunk({}, 'stop')}\n\n`, 'data: [DONE]\n\n'];
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const ended = harness.nextEnd();
    await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ stream: true }),
    });
    const end = await ended;
    expect(end.errorMessage).toMatch(NOT_JSON);
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.inputTokens ?? 0).toBeGreaterThan(0);
  });

  it('an empty data line or a named event without data is no broken event', async () => {
    const frames = [FRAMES[0], 'data: \n\n', 'event: ping\n\n', FRAMES[2], FRAMES[3], FRAMES[4]] as string[];
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ stream: true }),
    });
    expect(response.status).toBe(200);
    expect((await ended).errorClass).toBeNull();
  });
});
