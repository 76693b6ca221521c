import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * An HTML numeric character reference ends at its `;`, or without one where the next character is
 * no digit (WHATWG HTML 13.2.5.80, "missing-semicolon-after-character-reference": read all the same).
 * A gateway or a model writing the key so, cut before the `;` or after a reference without one, has
 * the key whole only across two deltas or two reads: the client must get it in neither.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

/** `sk-airlock-…` with its first `a` as a reference: `sk-&#97` then the rest. */
const BEFORE_REFERENCE = 'sk-';
const REFERENCE = '&#97';
const AFTER_REFERENCE = SENTINEL_KEY.slice(`${BEFORE_REFERENCE}a`.length);
const CUTS: Array<[string, string[]]> = [
  ['cut before its `;`', [`key ${BEFORE_REFERENCE}${REFERENCE}`, `;${AFTER_REFERENCE} done`]],
  ['without a `;`, cut after it', [`key ${BEFORE_REFERENCE}${REFERENCE}`, `${AFTER_REFERENCE} done`]],
  ['without a `;`, cut inside it', [`key ${BEFORE_REFERENCE}&#9`, `7${AFTER_REFERENCE} done`]],
  [
    'every character a reference without `;`, three characters a delta',
    [...SENTINEL_KEY]
      .map((char) => `&#${char.charCodeAt(0)}`)
      .join('')
      .match(/.{1,3}/g) ?? [],
  ],
];

const chunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** The three client shapes: an OpenAI SDK chat script, Claude Code (Messages) and Codex (Responses), each translated but chat. */
const CLIENTS: Array<[string, string, (stream: boolean) => string]> = [
  ['chat', '/v1/chat/completions', (stream) => chatBody({ stream })],
  [
    'Messages',
    '/v1/messages',
    (stream) => JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] }),
  ],
  ['Responses', '/v1/responses', (stream) => JSON.stringify({ model: 'gpt-5-codex', stream, input: 'hi' })],
];

async function answered(client: (typeof CLIENTS)[number], stream: boolean) {
  const [, path, body] = client;
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: body(stream) });
  const end = await ended;
  const liveText = harness.events.flatMap((event) => (event.type === 'delta' ? [event.text] : [])).join('');
  return { response, end, liveText };
}

describe.each(CLIENTS)('a key written with a character reference, to a %s client', (...client) => {
  it.each(CUTS)('%s, in content deltas: the client, the live text and the log spell no key', async (_cut, pieces) => {
    harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [...pieces.map((content) => chunk({ content })), chunk({}, 'stop'), 'data: [DONE]\n\n'],
    });
    const { response, end, liveText } = await answered(client, true);
    expect(response.status).toBe(200);
    expect(findSentinelInStream(response.body)).toBeNull();
    expect(findSentinel(liveText)).toBeNull();
    expect(findSentinel(end.bodies.streamText ?? '')).toBeNull();
    expect(findSentinelInStream(end.bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
  });

  it.each(CUTS)('%s, the event itself cut between two reads: the client spells no key', async (_cut, pieces) => {
    const event = chunk({ content: pieces.join('') });
    const cutAt = event.indexOf('&#') + 3;
    harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [event.slice(0, cutAt), event.slice(cutAt), chunk({}, 'stop'), 'data: [DONE]\n\n'],
    });
    const { response } = await answered(client, true);
    expect(findSentinelInStream(response.body)).toBeNull();
  });

  it.each(CUTS)('%s, in a whole answer: the client and the log spell no key', async (_cut, pieces) => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: chatAnswerText(pieces.join('')) });
    const { response, end } = await answered(client, false);
    expect(response.status).toBe(200);
    expect(findSentinel(response.body)).toBeNull();
    expect(findSentinel(end.bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
  });
});
