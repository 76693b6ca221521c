import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sameLengthMask } from '../../../proxy/core/keyMasker.ts';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { probeGateway } from '../../../proxy/app/control/gatewayProbe.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { fetchGatewayModels } from '../../../proxy/forward/gatewayModels.ts';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

async function send(path: string, options: { method?: string; body?: string } = {}) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: options.method ?? 'POST', headers: JSON_HEADERS, ...options });
  return { response, end: await ended };
}

const streamEvents = (texts: string[]): string =>
  [
    ...texts.map(
      (content) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`,
    ),
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    'data: [DONE]\n\n',
  ].join('');

/** A chat answer holding the key, labelled `content-encoding: <encoding>`: the client gets it plain and unlabelled, the key masked, and the row its usage. */
async function expectPlainChatAnswer(encoding: string): Promise<void> {
  harness.simulator.script({
    kind: 'text',
    status: 200,
    contentType: 'application/json',
    encoding,
    text: chatAnswerText(`your key: ${SENTINEL_KEY}`),
  });
  const { response, end } = await send('/v1/chat/completions', { body: chatBody() });
  expect(response.status).toBe(200);
  expect(response.headers['content-encoding']).toBeUndefined();
  const answer = JSON.parse(response.body) as { choices: [{ message: { content: string } }] };
  expect(answer.choices[0].message.content).toBe(`your key: ${sameLengthMask(SENTINEL_KEY.length)}`);
  expect(end).toMatchObject({ errorClass: null, usage: { inputTokens: 7, outputTokens: 5 } });
  expect(findSentinel(JSON.stringify(end))).toBeNull();
}

describe('a gateway that compresses its answer although Airlock asked for none', () => {
  it.each(['gzip', 'deflate', 'br', 'zstd'])('a chat answer in %s reaches the client plain, the key masked, its usage read', (encoding) =>
    expectPlainChatAnswer(encoding),
  );

  it('a passed-through answer (a file) reaches the client decoded, with the key masked', async () => {
    harness.simulator.script({ kind: 'text', path: '/files', status: 200, encoding: 'gzip', text: `notes\nkey=${SENTINEL_KEY}\n` });
    const { response, end } = await send('/v1/files/file-1/content', { method: 'GET' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toBe(`notes\nkey=${sameLengthMask(SENTINEL_KEY.length)}\n`);
    // Kept for the log decoded (its thread masks it, as any body), not as bytes no search or mask can read.
    expect(end.bodies.responseBody?.toString('utf8')).toBe(`notes\nkey=${SENTINEL_KEY}\n`);
  });

  it('a stream in br is relayed event by event, the key masked, to its [DONE]', async () => {
    const events = streamEvents(['Here is ', `the key ${SENTINEL_KEY}`, ' again']);
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'text/event-stream', encoding: 'br', text: events });
    const { response, end } = await send('/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(response.status).toBe(200);
    expect(findSentinel(response.body)).toBeNull();
    expect(sseData(response.body).at(-1)).toBe('[DONE]');
    expect(end.errorClass).toBeNull();
    expect(end.bodies.streamText).toBe(`Here is the key ${REDACTED} again`);
  });

  it('a coding Airlock cannot decode passes nothing on and says why', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      encoding: 'x-snappy',
      text: chatAnswerText(SENTINEL_KEY),
    });
    const { response, end } = await send('/v1/chat/completions', { body: chatBody() });
    expect(response.status).toBe(502);
    expect(findSentinel(response.body)).toBeNull();
    expect(response.body).toContain('content-encoding: x-snappy');
    // The gateway ran it: sent again, it would run (and bill) again.
    expect(harness.simulator.received).toHaveLength(1);
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });

  it('a GET, which may be sent again, is not: an undecodable answer is no network break', async () => {
    harness.simulator.script({ kind: 'text', path: '/files', status: 200, encoding: 'x-snappy', text: SENTINEL_KEY });
    const { response, end } = await send('/v1/files/file-1/content', { method: 'GET' });
    expect(response.status).toBe(502);
    expect(end.errorClass).toBe('upstream_error');
    expect(harness.simulator.received).toHaveLength(1);
  });

  // RFC 9110 section 9.3.2: a HEAD's answer carries the headers its GET's would, Content-Encoding
  // included, and no body; so do a 204 and a 304 (sections 15.3.5, 15.4.5). No bytes: nothing to decode.
  it("a HEAD's answer, labelled gzip as its GET's would be, is the gateway's answer and no decoding failure", async () => {
    harness.simulator.script({ kind: 'text', path: '/files', status: 200, encoding: 'gzip', text: 'notes' });
    const { response, end } = await send('/v1/files/file-1/content', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(end.errorClass).toBeNull();
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('a stream labelled gzip that is not ends with an error event, and none of it is passed on', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'text/event-stream',
      encoding: 'gzip',
      mislabelled: true,
      text: streamEvents([SENTINEL_KEY]),
    });
    const { response, end } = await send('/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(findSentinel(response.body)).toBeNull();
    expect(sseData(response.body)).not.toContain('[DONE]');
    // The gateway's fault, named as such: not a network break to retry.
    expect(end.errorClass).toBe('upstream_error');
    expect(end.errorMessage).toMatch(/gzip-compressed answer could not be decoded/);
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });

  it("a JSON answer labelled gzip that is not is answered as the gateway's error, and none of it is passed on", async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      encoding: 'gzip',
      mislabelled: true,
      text: chatAnswerText(SENTINEL_KEY),
    });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'upstream_error' } });
    expect(findSentinel(response.body)).toBeNull();
    const end = await ended;
    expect(end.errorClass).toBe('upstream_error');
    expect(end.errorMessage).toContain('could not be decoded');
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});

/**
 * A character set sent as the content coding (`content-encoding: utf-8`) labels plain bytes: openresty
 * answering JSON so (locustio/locust#1233), an API httpx could not read until it let unknown codings
 * pass (encode/httpx#195). The clients Airlock stands in front of read such an answer as it is (fetch
 * decodes only the codings it knows, httpx skips the others), so through Airlock they must too.
 */
describe('a gateway that names a character set as its content coding', () => {
  it.each(['utf-8', 'UTF-8', 'utf8', 'none'])('a chat answer labelled %s reaches the client, the key masked, its usage read', (encoding) =>
    expectPlainChatAnswer(encoding),
  );

  it('a stream so labelled is relayed to its [DONE], the key masked', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'text/event-stream',
      encoding: 'utf-8',
      text: streamEvents(['Hi ', SENTINEL_KEY]),
    });
    const { response, end } = await send('/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(response.status).toBe(200);
    expect(findSentinel(response.body)).toBeNull();
    expect(sseData(response.body).at(-1)).toBe('[DONE]');
    expect(end.errorClass).toBeNull();
  });

  it("a passed-through answer reaches the client without the untrue label, and a gateway's error so labelled is read as its error", async () => {
    const embedding = JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5] }], model: 'm' });
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', encoding: 'utf-8', text: embedding });
    const passed = await send('/v1/embeddings', { body: JSON.stringify({ model: 'text-embedding-3-small', input: 'hi' }) });
    expect(passed.response.status).toBe(200);
    expect(passed.response.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(passed.response.body)).toEqual(JSON.parse(embedding));

    const refusal = JSON.stringify({
      error: { message: 'model gpt-x does not exist', type: 'invalid_request_error', code: 'model_not_found' },
    });
    harness.simulator.script({ kind: 'text', status: 404, contentType: 'application/json', encoding: 'utf-8', text: refusal });
    const refused = await send('/v1/chat/completions', { body: chatBody() });
    expect(refused.end.errorClass).toBe('model_not_found');
    expect(refused.response.body).toContain('model gpt-x does not exist');
  });
});

describe('one-off calls to a gateway that compresses regardless', () => {
  const target = () => ({
    profile: profileSchema.parse({ id: 'sim', name: 'Simulator', baseUrl: harness.simulator.baseUrl }),
    apiKey: SENTINEL_KEY,
  });
  const modelList = JSON.stringify({
    object: 'list',
    data: [
      { id: 'gpt-4o-mini', object: 'model' },
      { id: 'qwen-plus', object: 'model' },
    ],
  });

  it('the model list is read decoded', async () => {
    harness.simulator.script({
      kind: 'text',
      path: '/models',
      status: 200,
      contentType: 'application/json',
      encoding: 'gzip',
      text: modelList,
    });
    const fetched = await fetchGatewayModels(target(), Date.now(), 10_000);
    expect(fetched).toMatchObject({ ok: true, list: { ids: ['gpt-4o-mini', 'qwen-plus'] } });
  });

  it('the Test button reads a br answer as the JSON it is', async () => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', encoding: 'br', text: chatAnswerText('ok') });
    const probed = await probeGateway(target(), 'POST', '/chat/completions', JSON.parse(chatBody()));
    expect(probed).toMatchObject({ status: 200, errorClass: null });
    expect(JSON.parse(probed.bodyText)).toMatchObject({ choices: [{ message: { content: 'ok' } }] });
  });

  it("an answer that does not decode is the gateway's error, not a network failure", async () => {
    harness.simulator.script({ kind: 'text', path: '/models', status: 200, encoding: 'gzip', mislabelled: true, text: modelList });
    expect(await probeGateway(target(), 'GET', '/models')).toMatchObject({ status: null, errorClass: 'upstream_error' });
  });
});
