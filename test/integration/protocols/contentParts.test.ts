import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_IDS } from '../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Mistral's reasoning models (Magistral, and others asked for a reasoning_effort, which Airlock sends
 * for Codex and Claude Code) answer with `content` as a list of parts, streamed and whole: `thinking`
 * parts holding text parts, then `text` parts (https://docs.mistral.ai/capabilities/reasoning/;
 * streamed as BerriAI/litellm#16272 shows it; symfony/ai#2422 met it with reasoning_effort). A
 * translated client must get both, the thinking as thinking and the answer as text.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    simulator: { models: [...DEFAULT_MODEL_IDS, 'magistral-medium-2509'] },
    profile: {
      modelRoutes: [
        { pattern: 'claude-*', target: 'magistral-medium-2509' },
        { pattern: 'gpt-5*', target: 'magistral-medium-2509' },
      ],
    },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const USAGE = { prompt_tokens: 9, completion_tokens: 21, total_tokens: 30 };
const ENVELOPE = { id: 'c3c77283', created: 1, model: 'magistral-medium-2509' };
const thinkingPart = (text: string) => ({ type: 'thinking', thinking: [{ type: 'text', text }] });
const event = (delta: object, finishReason: string | null = null, usage?: object): string =>
  `data: ${JSON.stringify({ ...ENVELOPE, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...(usage ? { usage } : {}) })}\n\n`;

const STREAM = [
  event({ role: 'assistant', content: [thinkingPart("It's a greeting")] }),
  event({ content: [thinkingPart(', I should greet back.')] }),
  event({ content: 'Hello' }),
  event({ content: [{ type: 'text', text: ' there!' }] }),
  event({}, 'stop', USAGE),
  'data: [DONE]\n\n',
];
const WHOLE = JSON.stringify({
  ...ENVELOPE,
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: [thinkingPart("It's a greeting, I should greet back."), { type: 'text', text: 'Hello there!' }],
      },
      finish_reason: 'stop',
    },
  ],
  usage: USAGE,
});

describe('an answer whose content is a list of thinking and text parts (Mistral)', () => {
  it('streams to an Anthropic client as a thinking block and the answer text', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: STREAM });
    const ended = harness.nextEnd();
    const client = new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
    const message = await client.messages
      .stream({ model: 'claude-sonnet-4-6', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'thinking', thinking: "It's a greeting, I should greet back." }),
      expect.objectContaining({ type: 'text', text: 'Hello there!' }),
    ]);
    const end = await ended;
    expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
    expect(end.bodies.streamText).toBe('Hello there!');
  });

  it('reaches a Responses client asking for a whole answer as a reasoning item and the answer text', async () => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: WHOLE });
    const ended = harness.nextEnd();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
    const response = await client.responses.create({ model: 'gpt-5-codex', input: 'hi', store: false });
    expect(response.output_text).toBe('Hello there!');
    const reasoning = response.output.find((item) => item.type === 'reasoning');
    expect(reasoning?.summary).toEqual([{ type: 'summary_text', text: "It's a greeting, I should greet back." }]);
    expect(await ended).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
  });
});

describe('the gateway key echoed across content parts', () => {
  // The model repeats a pasted key; split between two events, it is whole only in what the client assembles.
  const cut = 14;
  const ECHO = [
    event({ role: 'assistant', content: [thinkingPart(`the key is ${SENTINEL_KEY.slice(0, cut)}`)] }),
    event({ content: [thinkingPart(`${SENTINEL_KEY.slice(cut)}, said twice`)] }),
    event({ content: [{ type: 'text', text: `Your key: ${SENTINEL_KEY.slice(0, cut)}` }] }),
    event({ content: [{ type: 'text', text: `${SENTINEL_KEY.slice(cut)}.` }] }),
    event({}, 'stop', USAGE),
    'data: [DONE]\n\n',
  ];

  it.each([
    [
      'a chat client',
      '/v1/chat/completions',
      { model: 'magistral-medium-2509', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    ],
    [
      'an Anthropic client',
      '/v1/messages',
      { model: 'claude-sonnet-4-6', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] },
    ],
    ['a Responses client', '/v1/responses', { model: 'gpt-5-codex', input: 'hi', stream: true, store: false }],
  ])('never reaches %s or the row', async (_client, path, body) => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: ECHO });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
    const end = await ended;
    expect(findSentinel(response.body)).toBeNull();
    expect(findSentinel(end.bodies.streamText ?? '')).toBeNull();
    expect(response.body).toContain('said twice');
  });
});
