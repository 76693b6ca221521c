import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import type { Harness } from '../../support/proxyHarness.ts';
import { REASONING_MODEL, sdkClients, startReasoningHarness } from '../../support/reasoningHarness.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * The key guard holds back the end of a field that could begin the key (`s` of `sk-`), until the
 * field goes on or its choice finishes. Thinking that ends so, held until the finish, came after the
 * answer's text: Claude Code showed a second thinking block after the text, Codex a reasoning item
 * after the message. Held text is handed on when the choice goes on to another field, and a key the
 * field then goes on to spell out is still masked: a chat client joins all its reasoning deltas.
 */
const PROMPT = 'Name two keys';
/** The simulator's thinking for a reasoning model (test/simulator/chat.ts): it ends with the `s` the guard holds. */
const THINKING = `Thinking about: ${PROMPT}`;

let harness: Harness;

beforeAll(async () => {
  harness = await startReasoningHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

const { anthropic, openai } = sdkClients(() => harness);

describe('thinking that ends with what could begin the key', () => {
  it('reaches Claude Code as one thinking block, before the text', async () => {
    const stream = anthropic().messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: PROMPT }],
    });
    const message = await stream.finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: THINKING });
  });

  it('reaches Codex as one reasoning item, before the message', async () => {
    const stream = openai().responses.stream({ model: 'gpt-5-codex', input: PROMPT, store: false });
    const response = await stream.finalResponse();
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: THINKING }] });
  });

  it('reaches a chat client whole, before the first content delta', async () => {
    const stream = await openai().chat.completions.create({
      model: REASONING_MODEL,
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    const kinds: string[] = [];
    let reasoning = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) {
        reasoning += delta.reasoning_content;
        if (kinds.at(-1) !== 'reasoning') kinds.push('reasoning');
      }
      if (delta?.content && kinds.at(-1) !== 'content') kinds.push('content');
    }
    expect(kinds).toEqual(['reasoning', 'content']);
    expect(reasoning).toBe(THINKING);
  });
});

describe('the key split around the text by thinking that goes on after it', () => {
  const chunk = (delta: object, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: REASONING_MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  /** How much of the key the thinking holds when the text starts: one character, less than half, more than half, cut in an escape. */
  const SPLITS: Array<[string, string, string]> = [
    ['its first character', 's', SENTINEL_KEY.slice(1)],
    ['less than half of it', SENTINEL_KEY.slice(0, 15), SENTINEL_KEY.slice(15)],
    ['more than half of it', SENTINEL_KEY.slice(0, 30), SENTINEL_KEY.slice(30)],
    ['its start, then a percent escape cut short', 'sk%2', `D${SENTINEL_KEY.slice(3)}`],
    ['its start, then its dash as a reference cut short', 'sk&#4', `5;${SENTINEL_KEY.slice(3)}`],
  ];
  const CLIENTS: Array<[string, string, string]> = [
    ['a chat client', '/v1/chat/completions', chatBody({ model: REASONING_MODEL, stream: true })],
    [
      'Claude Code',
      '/v1/messages',
      JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    ],
    ['Codex', '/v1/responses', JSON.stringify({ model: 'gpt-5-codex', stream: true, input: 'hi' })],
  ];

  describe.each(CLIENTS)('to %s', (_client, path, body) => {
    it.each(SPLITS)('thinking holding %s: no text it assembles, nor the log, spells the key', async (_split, before, after) => {
      harness.simulator.script({
        kind: 'bodyChunks',
        chunks: [
          chunk({ reasoning_content: `I will print ${before}` }),
          chunk({ content: 'Here it is:' }),
          chunk({ reasoning_content: `${after} and stop` }),
          chunk({}, 'stop'),
          'data: [DONE]\n\n',
        ],
      });
      const ended = harness.nextEnd();
      const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
      const end = await ended;
      expect(response.body).toContain('Here it is:');
      expect(findSentinelInStream(response.body)).toBeNull();
      expect(findSentinel(harness.events.flatMap((event) => (event.type === 'delta' ? [event.text] : [])).join(''))).toBeNull();
      expect(findSentinelInStream(end.bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
    });
  });
});
