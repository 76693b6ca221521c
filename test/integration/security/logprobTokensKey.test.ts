import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A chat answer with `logprobs` lists each token of the text with its UTF-8 `bytes` and the likeliest
 * alternatives (platform.openai.com/docs/api-reference/chat/object, `choices[].logprobs.content`):
 * a script that asked for them can join the tokens back into the text. A key the model repeats is
 * masked in `content`; it must not be whole in the tokens either.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] | null }>;
}

const logprob = (token: string): TokenLogprob => ({
  token,
  logprob: -0.25,
  bytes: [...Buffer.from(token)],
  top_logprobs: [{ token, logprob: -0.25, bytes: [...Buffer.from(token)] }],
});

describe('a whole chat answer whose logprobs spell out the key', () => {
  it('gives the client and the log tokens that join into the text as masked, each with its own bytes', async () => {
    const text = `Your key is ${SENTINEL_KEY}, keep it.`;
    const tokens = text.match(/.{1,4}/g) ?? [];
    const answer = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text },
          logprobs: { content: tokens.map(logprob), refusal: null },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: tokens.length, total_tokens: 5 + tokens.length },
    };
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: JSON.stringify(answer) });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ logprobs: true, top_logprobs: 1 }),
    });
    const end = await ended;
    const received = JSON.parse(response.body) as { choices: [{ message: { content: string }; logprobs: { content: TokenLogprob[] } }] };
    const [choice] = received.choices;
    expect(choice.logprobs.content.map((entry) => entry.token).join('')).toBe('Your key is [redacted], keep it.');
    for (const entry of choice.logprobs.content) {
      expect(Buffer.from(entry.bytes ?? []).toString('utf8')).toBe(entry.token);
      for (const alternative of entry.top_logprobs) expect(findSentinel(alternative.token)).toBeNull();
    }
    expect(findSentinel(choice.logprobs.content.map((entry) => entry.top_logprobs[0]?.token ?? '').join(''))).toBeNull();
    expect(findSentinel(choice.logprobs.content.map((entry) => Buffer.from(entry.bytes ?? []).toString('latin1')).join(''))).toBeNull();
    const logged = JSON.parse(end.bodies.responseBody?.toString('utf8') ?? '{}') as typeof received;
    expect(findSentinel(logged.choices[0].logprobs.content.map((entry) => entry.token).join(''))).toBeNull();
  });
});

describe('a chat stream whose logprobs spell out the key, a token a chunk', () => {
  /** Each chunk's content delta and its logprob entries, in order, as a client collects them. */
  function collected(body: string): { content: string; entries: TokenLogprob[] } {
    let content = '';
    const entries: TokenLogprob[] = [];
    for (const data of sseData(body)) {
      if (data === '[DONE]') continue;
      const [choice] = (
        JSON.parse(data) as { choices: Array<{ delta?: { content?: string }; logprobs?: { content?: TokenLogprob[] | null } | null }> }
      ).choices;
      content += choice?.delta?.content ?? '';
      entries.push(...(choice?.logprobs?.content ?? []));
    }
    return { content, entries };
  }

  it.each([
    ['ended by its finish', true],
    ['ended by [DONE] alone (relays without a finish chunk)', false],
  ])('%s: the client and the log get tokens that join into the text as masked, each with its own bytes', async (_end, withFinish) => {
    const text = `Your key is ${SENTINEL_KEY}, keep its`;
    const chunk = (choice: object): string =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [choice] })}\n\n`;
    harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [
        ...(text.match(/.{1,4}/g) ?? []).map((token) =>
          chunk({ index: 0, delta: { content: token }, logprobs: { content: [logprob(token)], refusal: null }, finish_reason: null }),
        ),
        ...(withFinish ? [chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' })] : []),
        'data: [DONE]\n\n',
      ],
    });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ stream: true, logprobs: true, top_logprobs: 1 }),
    });
    const end = await ended;
    const { content, entries } = collected(response.body);
    expect(content).toBe('Your key is [redacted], keep its');
    expect(entries.map((entry) => entry.token).join('')).toBe(content);
    for (const entry of entries) expect(Buffer.from(entry.bytes ?? []).toString('utf8')).toBe(entry.token);
    expect(findSentinelInStream(response.body)).toBeNull();
    expect(findSentinel(entries.map((entry) => Buffer.from(entry.bytes ?? []).toString('latin1')).join(''))).toBeNull();
    const logged = collected(end.bodies.responseBody?.toString('utf8') ?? '');
    expect(logged.entries.map((entry) => entry.token).join('')).toBe(content);
  });
});

describe('a chat stream whose logprobs spell most of the key, not all of it', () => {
  // Half the key or more: the content's stream masks such a run where it breaks off or the text ends on it.
  const run = SENTINEL_KEY.slice(0, 40);
  it.each([
    ['broken off mid-stream', ' then more words here', false, 'see [redacted] then more words here'],
    ['broken off in the chunk that finishes the choice', ' then', true, 'see [redacted] then'],
    ['ended on at the finish', '', false, 'see [redacted]'],
  ])('%s: an OpenAI SDK client and the log get tokens masked where the content is', async (_case, after, finishedByLast, expected) => {
    const chunk = (choice: object): string =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [choice] })}\n\n`;
    const tokens = [...(`see ${run}`.match(/.{1,3}/g) ?? []), ...(after === '' ? [] : [after])];
    harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [
        chunk({ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }),
        ...tokens.map((token, position) =>
          chunk({
            index: 0,
            delta: { content: token },
            logprobs: { content: [logprob(token)], refusal: null },
            finish_reason: finishedByLast && position === tokens.length - 1 ? 'stop' : null,
          }),
        ),
        ...(finishedByLast ? [] : [chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' })]),
        'data: [DONE]\n\n',
      ],
    });
    const ended = harness.nextEnd();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      top_logprobs: 1,
    });
    const answer = await stream.finalChatCompletion();
    const end = await ended;
    const [choice] = answer.choices;
    const entries = choice?.logprobs?.content ?? [];
    expect(choice?.message.content).toBe(expected);
    expect(entries.map((entry) => entry.token).join('')).toBe(choice?.message.content);
    for (const entry of entries) {
      expect(Buffer.from(entry.bytes ?? []).toString('utf8')).toBe(entry.token);
    }
    const halfKey = SENTINEL_KEY.slice(0, SENTINEL_KEY.length / 2);
    expect(entries.flatMap((entry) => entry.top_logprobs.map((alternative) => alternative.token)).join('')).not.toContain(halfKey);
    const logged = end.bodies.responseBody?.toString('utf8') ?? '';
    const loggedTokens = sseData(logged)
      .filter((data) => data !== '[DONE]')
      .flatMap((data) => (JSON.parse(data) as { choices: Array<{ logprobs?: { content?: TokenLogprob[] | null } | null }> }).choices)
      .flatMap((loggedChoice) => loggedChoice.logprobs?.content ?? [])
      .map((entry) => entry.token)
      .join('');
    expect(loggedTokens).toBe(expected);
    expect(logged).not.toContain(halfKey);
  });
});
