import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyCache } from '../../../proxy/spend/idempotencyCache.ts';
import { chatBody } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { stalledUpload } from '../../support/stalledUpload.ts';

/**
 * Every kind of reply the proxy makes to a forwarded request carries Airlock's request id once, and
 * it is the id of the request's log row (the `end` event the log writes): the id a user quotes in
 * support. Airlock's own headers wait beside the response and are written with its head
 * (forward/answerHead.ts), so a reply whose head went out another way would lose them.
 */
let plain: Harness;
let withFallback: Harness;
const REQUEST_TIMEOUT_MS = 1000;

beforeAll(async () => {
  const profile = {
    retry: { maxRetries: 0, maxRetryAfterMs: 8000 },
    modelRoutes: [
      { pattern: 'claude-*', target: 'gpt-4o-mini' },
      { pattern: 'gpt-5*', target: 'gpt-4o-mini' },
    ],
  };
  plain = await startHarness({ profile, idempotency: new IdempotencyCache(), requestTimeoutMs: REQUEST_TIMEOUT_MS });
  withFallback = await startHarness({ profile: { ...profile, fallbacks: [{ model: 'deepseek-chat' }], maxRequestBodyMiB: 1 } });
});
afterAll(async () => {
  await plain.close();
  await withFallback.close();
});

interface Reply {
  status: number;
  /** The header lines as received, names lower-cased. */
  lines: [string, string][];
  body: string;
}

/** One request as a plain client sends it; the body read to its end, or to the connection's. */
function send(harness: Harness, method: string, path: string, body: string | null, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${harness.proxy.url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const lines: [string, string][] = [];
      for (let index = 0; index < res.rawHeaders.length; index += 2)
        lines.push([(res.rawHeaders[index] as string).toLowerCase(), res.rawHeaders[index + 1] as string]);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = (): void => resolve({ status: res.statusCode ?? 0, lines, body: Buffer.concat(chunks).toString('utf8') });
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** The request ids a reply carries. */
const idsOf = (reply: Pick<Reply, 'lines'>): string[] =>
  reply.lines.filter(([name]) => name === 'x-airlock-request-id').map(([, value]) => value);

/** Sends, and checks the reply's one request id against its request's log row . */
async function expectOwnId(harness: Harness, exchange: () => Promise<Reply>, status: number): Promise<Reply> {
  const ended = harness.nextEnd();
  const reply = await exchange();
  const end = await ended;
  expect(reply.status).toBe(status);
  expect(end.status).toBe(status);
  expect(idsOf(reply)).toEqual([end.requestId]);
  return reply;
}

const anthropicBody = (stream = false): string =>
  JSON.stringify({ model: 'claude-sonnet-4', max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] });
const responsesBody = (stream = false): string => JSON.stringify({ model: 'gpt-5', input: 'hi', stream });

describe("Airlock's request id on every kind of reply to a forwarded request", () => {
  it('a whole JSON success', async () => {
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/chat/completions', chatBody()), 200);
  });

  it('a stream', async () => {
    const reply = await expectOwnId(plain, () => send(plain, 'POST', '/v1/chat/completions', chatBody({ stream: true })), 200);
    expect(reply.body).toContain('[DONE]');
  });

  it('a stream broken mid-way (its error event ends it)', async () => {
    plain.simulator.script({ kind: 'cutAfter', chunks: 2 });
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/chat/completions', chatBody({ stream: true })), 200);
  });

  it('a HEAD passed through', async () => {
    plain.simulator.script({ kind: 'text', status: 200, text: '', contentType: 'application/json' });
    await expectOwnId(plain, () => send(plain, 'HEAD', '/v1/files/file-1', null), 200);
  });

  // A WebSocket handshake (Codex's, answered 426 so it goes over to HTTP) and a token-less HEAD leave no row.
  it('a refusal no row records carries no id: a user would look it up and find nothing', async () => {
    const eventsBefore = plain.events.length;
    const reply = await send(plain, 'GET', '/v1/responses', null, { connection: 'Upgrade', upgrade: 'websocket' });
    expect(reply.status).toBe(426);
    expect(idsOf(reply)).toEqual([]);
    expect(plain.events.length).toBe(eventsBefore);
  });

  it('a 304 passed through', async () => {
    plain.simulator.script({ kind: 'text', status: 304, text: '', headers: { etag: '"v1"' } });
    await expectOwnId(plain, () => send(plain, 'GET', '/v1/files/file-1/content', null, { 'if-none-match': '"v1"' }), 304);
  });

  it("a gateway's 4xx", async () => {
    plain.simulator.script({ kind: 'status', status: 404 });
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/chat/completions', chatBody()), 404);
  });

  it("a gateway's 5xx", async () => {
    plain.simulator.script({ kind: 'status', status: 500 });
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/chat/completions', chatBody()), 500);
  });

  it('a local refusal on the forward path (a body that is not JSON)', async () => {
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/chat/completions', '{not json'), 400);
  });

  it("a local refusal on the forward path (a body past the profile's limit)", async () => {
    const body = chatBody({ messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024) }] });
    await expectOwnId(withFallback, () => send(withFallback, 'POST', '/v1/chat/completions', body), 413);
  });

  it('a local answer (a translated count_tokens)', async () => {
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/messages/count_tokens', anthropicBody()), 200);
  });

  it("an idempotent replay: its own id, not the first request's", async () => {
    const body = JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse' });
    const first = await expectOwnId(plain, () => send(plain, 'POST', '/v1/images/generations', body, { 'idempotency-key': 'own-id' }), 200);
    const replay = await expectOwnId(
      plain,
      () => send(plain, 'POST', '/v1/images/generations', body, { 'idempotency-key': 'own-id' }),
      200,
    );
    expect(replay.body).toBe(first.body);
    expect(idsOf(replay)).not.toEqual(idsOf(first));
  });

  it('a fallback answer', async () => {
    withFallback.simulator.script({ kind: 'status', status: 503 });
    const reply = await expectOwnId(withFallback, () => send(withFallback, 'POST', '/v1/chat/completions', chatBody()), 200);
    expect(reply.lines).toContainEqual(['x-airlock-fallbacks', '1']);
  });

  it.each([false, true])('a translated Anthropic Messages answer (stream %s)', async (stream) => {
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/messages', anthropicBody(stream)), 200);
  });

  it.each([false, true])('a translated Responses answer (stream %s)', async (stream) => {
    await expectOwnId(plain, () => send(plain, 'POST', '/v1/responses', responsesBody(stream)), 200);
  });

  it.each([
    ['read whole', '/v1/chat/completions', Buffer.from(chatBody({ messages: [{ role: 'user', content: 'x'.repeat(4096) }] }))],
    [
      'sent on while it arrives',
      '/v1/embeddings',
      Buffer.from(JSON.stringify({ model: 'text-embedding-3-small', input: 'x'.repeat(1024 * 1024 + 64) })),
    ],
  ])("a stalled upload's 408 (%s)", async (_how, path, body) => {
    const ended = plain.nextEnd();
    const answer = await stalledUpload(plain, body, () => Promise.resolve(), path);
    const end = await ended;
    expect(answer.status).toBe(408);
    expect(end.status).toBe(408);
    // Node joins a repeated header's values with ", ": one id is the row's whole.
    expect(answer.headers['x-airlock-request-id']).toBe(end.requestId);
  });
});
