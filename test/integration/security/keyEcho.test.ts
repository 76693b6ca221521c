import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { sameLengthMask } from '../../../proxy/core/keyMasker.ts';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { openStream } from '../../support/openStream.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';

/** What the simulator's echoKey fault replies, with the key in it. */
const echoed = (key: string): string => `Here is the key you use: ${key} (keep it safe).`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'claude-*', target: 'gpt-4o-mini' }] } });
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body });
  return { response, end: await ended };
}

/** The text a client assembles from Chat Completions chunks. */
function chatText(body: string): string {
  return sseData(body)
    .filter((data) => data !== '[DONE]')
    .map((data) => (JSON.parse(data) as { choices?: [{ delta?: { content?: string } }] }).choices?.[0]?.delta?.content ?? '')
    .join('');
}

describe('a gateway that echoes the key: what the client receives', () => {
  it('a JSON answer: the request id header and the body are masked, the length stays true', async () => {
    harness.simulator.script({ kind: 'echoKey' });
    const { response } = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe(`req_${REDACTED}`);
    expect(findSentinel(JSON.stringify(response.headers))).toBeNull();
    expect(findSentinel(response.body)).toBeNull();
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
    const answer = JSON.parse(response.body) as { choices: [{ message: { content: string } }] };
    expect(answer.choices[0].message.content).toBe(echoed(sameLengthMask(SENTINEL_KEY.length)));
  });

  it.each([
    ['after text of several bytes a character', `Clé für Sie — ${SENTINEL_KEY} ✓`],
    ['with nothing else around it', SENTINEL_KEY],
  ])('a JSON answer holding the key as written %s: masked in place, every other byte as sent', async (_label, content) => {
    const answer = JSON.stringify({
      id: 'chatcmpl-echo',
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    });
    harness.simulator.script({ kind: 'text', status: 200, text: answer, contentType: 'application/json' });
    const { response } = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(findSentinel(response.body)).toBeNull();
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
    const masked = (JSON.parse(response.body) as { choices: [{ message: { content: string } }] }).choices[0].message.content;
    expect(masked).toBe(content.replace(SENTINEL_KEY, sameLengthMask(SENTINEL_KEY.length)));
  });

  it.each([[[2, 3]], [[3]], [[2]], [[1]]])(
    'a stream with the key in deltas of %j characters: the text is whole but for the key',
    async (deltaChars) => {
      harness.simulator.script({ kind: 'echoKey', deltaChars });
      const { response } = await post('/v1/chat/completions', chatBody({ stream: true }));
      expect(response.headers['x-request-id']).toBe(`req_${REDACTED}`);
      expect(findSentinel(response.body)).toBeNull();
      expect(chatText(response.body)).toBe(echoed(REDACTED));
      expect(sseData(response.body).at(-1)).toBe('[DONE]');
    },
  );

  it('an Anthropic client on a translated stream gets the key masked too', async () => {
    harness.simulator.script({ kind: 'echoKey' });
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const { response } = await post('/v1/messages', body);
    const text = sseData(response.body)
      .map((data) => JSON.parse(data) as { type: string; delta?: { text?: string } })
      .filter((event) => event.type === 'content_block_delta')
      .map((event) => event.delta?.text ?? '')
      .join('');
    expect(text).toBe(echoed(REDACTED));
    expect(findSentinel(response.body)).toBeNull();
  });
});

describe('a gateway that echoes the key: what Airlock keeps and shows', () => {
  it('the lifecycle events (the live feed and the log read them) never spell out the key, across deltas either', async () => {
    harness.simulator.script({ kind: 'echoKey' });
    const { end } = await post('/v1/chat/completions', chatBody({ stream: true }));
    const deltas = harness.events.flatMap((event) => (event.type === 'delta' ? [event.text] : []));
    expect(deltas.join('')).toBe(echoed(REDACTED));
    expect(harness.events.filter((event) => event.type === 'headers').map((event) => event.upstreamRequestId)).toEqual([`req_${REDACTED}`]);
    expect(end.upstreamRequestId).toBe(`req_${REDACTED}`);
    expect(end.bodies.streamText).toBe(echoed(REDACTED));
    expect(findSentinel(JSON.stringify(end.bodies.responseHeaders))).toBeNull();
    // The raw events kept for the log: the key is in no event, and the events no longer assemble it.
    const rawEvents = end.bodies.responseBody?.toString('utf8') ?? '';
    expect(findSentinel(rawEvents)).toBeNull();
    expect(chatText(rawEvents)).toBe(echoed(REDACTED));
  });
});

describe('a stream cut while the key is still held back', () => {
  /** A chat stream that repeats the key two characters a delta and breaks off after `keyChars` of them, without [DONE]. */
  function cutMidKey(keyChars: number): string[] {
    const chunk = (content: string): string =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const events = [chunk('Here is the key you use: ')];
    for (let at = 0; at < keyChars; at += 2) events.push(chunk(SENTINEL_KEY.slice(at, Math.min(at + 2, keyChars))));
    return events;
  }

  it('keeps no raw event for the log that assembles the part of the key the client never saw', async () => {
    const keyChars = 30;
    harness.simulator.script({ kind: 'bodyChunks', chunks: cutMidKey(keyChars) });
    const { response, end } = await post('/v1/chat/completions', chatBody({ stream: true }));
    expect(end.errorClass).toBe('stream_interrupted');
    const clientSaw = chatText(response.body);
    expect(clientSaw).not.toContain(SENTINEL_KEY.slice(0, 8));
    const rawEvents = end.bodies.responseBody?.toString('utf8') ?? '';
    // The events kept spell out no more of the key than the client was shown.
    expect(chatText(rawEvents)).toBe(clientSaw);
    expect(chatText(rawEvents)).not.toContain(SENTINEL_KEY.slice(0, 8));
  });
});

describe('the key wherever a gateway puts it in a stream, however the stream is cut', () => {
  /** The key as a JSON encoder may write it inside a string: its `-` as `\u002d` (any character may be escaped so). */
  const escapedKey = SENTINEL_KEY.replaceAll('-', '\\u002d');
  const chunkJson = (fields: string): string => `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",${fields}}`;
  const delta = (content: string, finish: string | null = null): string =>
    chunkJson(`"choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":${finish === null ? 'null' : `"${finish}"`}}]`);
  const split = SENTINEL_KEY.length / 2;

  it.each([
    ['a comment, cut across chunks', [`: key ${SENTINEL_KEY.slice(0, split)}`, `${SENTINEL_KEY.slice(split)}\n\n`]],
    ['an id field', [`id: ${SENTINEL_KEY}\ndata: ${delta('hi')}\n\n`]],
    ['an event name', [`event: ${SENTINEL_KEY}\ndata: ${delta('hi')}\n\n`]],
    ['a content delta, JSON-escaped', [`data: ${delta(`key ${escapedKey}`)}\n\n`]],
    ['a field no guard watches, JSON-escaped', [`data: ${chunkJson(`"x":"${escapedKey}","choices":[]`)}\n\n`]],
    [
      'an error event, JSON-escaped',
      [`event: error\ndata: {"error":{"message":"Incorrect API key provided: ${escapedKey}","code":401}}\n\n`],
    ],
    [
      'an error event cut across chunks',
      [`data: {"error":{"message":"bad key ${SENTINEL_KEY.slice(0, split)}`, `${SENTINEL_KEY.slice(split)}"}}\n\n`],
    ],
  ])('in %s: the client never gets it and the JSON stays valid', async (_place, frames) => {
    harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [`data: ${delta('a')}\n\n`, ...frames, `data: ${delta('', 'stop')}\n\n`, 'data: [DONE]\n\n'],
    });
    const { response, end } = await post('/v1/chat/completions', chatBody({ stream: true }));
    expect(findSentinelInStream(response.body)).toBeNull();
    for (const data of sseData(response.body)) if (data !== '[DONE]') expect(() => JSON.parse(data)).not.toThrow();
    expect(findSentinelInStream(end.bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
  });
});

describe('the key JSON-escaped in a translated stream', () => {
  it('an Anthropic client gets the gateway error event without it', async () => {
    const escaped = SENTINEL_KEY.replaceAll('-', '\\u002d');
    harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [`data: {"error":{"message":"Incorrect API key provided: ${escaped}","code":401}}\n\n`],
    });
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const { response, end } = await post('/v1/messages', body);
    expect(sseData(response.body).map((data) => (JSON.parse(data) as { type: string }).type)).toContain('error');
    expect(findSentinelInStream(response.body)).toBeNull();
    expect(findSentinel(end.errorMessage ?? '')).toBeNull();
  });
});

describe('the key JSON-escaped in an answer that is not streamed', () => {
  it('a chat answer quoting it with \\u002d escapes: the client never gets it and the body stays valid JSON', async () => {
    const escaped = SENTINEL_KEY.replaceAll('-', '\\u002d');
    const text = chatAnswerText(`the key is ${SENTINEL_KEY}`).replace(SENTINEL_KEY, escaped);
    harness.simulator.script({ kind: 'text', status: 200, text, contentType: 'application/json' });
    const { response, end } = await post('/v1/chat/completions', chatBody());
    const answer = JSON.parse(response.body) as { choices: [{ message: { content: string } }] };
    expect(answer.choices[0].message.content).toBe(`the key is ${REDACTED}`);
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
    // The log keeps the answer as the client got it: its JSON, read, spells no key either.
    expect(findSentinel(JSON.stringify(JSON.parse(end.bodies.responseBody?.toString('utf8') ?? '{}')))).toBeNull();
  });

  it('a gateway error quoting it escaped: neither the client nor the log gets it', async () => {
    const escaped = SENTINEL_KEY.replaceAll('-', '\\u002d');
    const text = `{"error":{"message":"Incorrect API key provided: ${escaped}","type":"invalid_request_error","code":"invalid_api_key"}}`;
    harness.simulator.script({ kind: 'text', status: 401, text, contentType: 'application/json' });
    const { response, end } = await post('/v1/chat/completions', chatBody());
    expect(response.status).toBe(401);
    expect(findSentinel(JSON.stringify(JSON.parse(response.body)))).toBeNull();
    expect(findSentinel(JSON.stringify(JSON.parse(end.bodies.responseBody?.toString('utf8') ?? '{}')))).toBeNull();
    expect(findSentinel(end.errorMessage ?? '')).toBeNull();
  });
});

describe('the key JSON-escaped in an answer in the other form than the request asked for', () => {
  const escaped = SENTINEL_KEY.replaceAll('-', '\\u002d');

  it('a streamed request answered whole: neither the client nor the log gets it', async () => {
    const text = chatAnswerText(`the key is ${SENTINEL_KEY}`).replace(SENTINEL_KEY, escaped);
    harness.simulator.script({ kind: 'text', status: 200, text, contentType: 'application/json' });
    const { response, end } = await post('/v1/chat/completions', chatBody({ stream: true }));
    expect(findSentinelInStream(response.body)).toBeNull();
    expect(findSentinel(JSON.stringify(JSON.parse(end.bodies.responseBody?.toString('utf8') ?? '{}')))).toBeNull();
  });

  it('a request for a whole answer answered as a stream, the key in a field the answer leaves out: the log keeps none', async () => {
    const chunk = (fields: string): string =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini",${fields}}\n\n`;
    const text = [
      chunk(`"x_debug":"${escaped}","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]`),
      chunk('"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]'),
      'data: [DONE]\n\n',
    ].join('');
    harness.simulator.script({ kind: 'text', status: 200, text, contentType: 'text/event-stream' });
    const { response, end } = await post('/v1/chat/completions', chatBody());
    expect(JSON.parse(response.body)).toMatchObject({ choices: [{ message: { content: 'hi' } }] });
    expect(findSentinel(JSON.stringify(JSON.parse(response.body)))).toBeNull();
    expect(findSentinelInStream(end.bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
  });
});

describe('a key escaped and cut across two reads of a passed-through body', () => {
  /** Every character percent-encoded, as a URL may write it (RFC 3986 section 2.1). */
  const percentEvery = [...SENTINEL_KEY].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).join('');

  it.each([['plain'], ['gzip'], ['br']])('%s: the client gets it masked whole, the rest as sent', async (coding) => {
    let release: () => void = () => undefined;
    const secondRead = new Promise<void>((resolve) => {
      release = resolve;
    });
    const text = `key: ${percentEvery}\n`;
    harness.simulator.script({
      kind: 'text',
      path: '/files',
      status: 200,
      text,
      ...(coding === 'plain' ? {} : { encoding: coding }),
      pausedAt: { byte: 'key: '.length + Math.floor(percentEvery.length / 2), until: secondRead },
    });
    const ended = harness.nextEnd();
    const stream = openStream(`${harness.proxy.url}/v1/files/file-1/content`, JSON_HEADERS, '{}');
    // The first read has gone through Airlock to the client before the second is sent.
    await stream.started;
    release();
    const { body } = await stream.outcome;
    await ended;
    expect(body).toBe(`key: ${sameLengthMask(percentEvery.length)}\n`);
  });
});

describe('a key escaped and streamed a few characters a delta', () => {
  const chunk = (content: string, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
  /** The key as a model writes it into a URL it builds, every character percent-encoded, and as an HTML page's references. */
  const escapings = [
    ['percent-encoded', [...SENTINEL_KEY].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).join('')],
    ['as HTML references', SENTINEL_KEY.replaceAll('-', '&#45;')],
    // HTML reads a numeric reference's digits however many there are (WHATWG HTML 13.2.5.80).
    ['as HTML references padded with zeros', SENTINEL_KEY.replaceAll('-', '&#x00000002d;')],
    // No escape to a URL or HTML decoder, which read the key after it all the same (JSON has no `\&`).
    ['as HTML references after a lone backslash', `\\${[...SENTINEL_KEY].map((char) => `&#${char.charCodeAt(0)};`).join('')}`],
  ];

  it.each(escapings)('%s: the text the client assembles, and the events Airlock keeps and shows, spell no key', async (_name, escaped) => {
    const deltas = ['curl "https://api.example/v1?key='];
    for (let at = 0; at < escaped.length; at += 3) deltas.push(escaped.slice(at, at + 3));
    deltas.push('" # 100% done');
    harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [...deltas.map((delta) => chunk(delta)), chunk('', 'stop'), 'data: [DONE]\n\n'],
    });
    const { response, end } = await post('/v1/chat/completions', chatBody({ stream: true }));
    const kept = escaped.startsWith('\\') ? '\\' : '';
    expect(chatText(response.body)).toBe(`curl "https://api.example/v1?key=${kept}${REDACTED}" # 100% done`);
    expect(findSentinelInStream(response.body)).toBeNull();
    expect(end.bodies.streamText).toBe(chatText(response.body));
    expect(findSentinelInStream(end.bodies.responseBody?.toString('utf8') ?? '')).toBeNull();
  });
});
