import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorBody } from '../../../../proxy/contracts/controlApi.ts';
import type { BodyTextResponse, RequestDetail } from '../../../../proxy/contracts/requests.ts';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import type { ReplayRequest, ReplayResponse } from '../../../../proxy/contracts/replay.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

let harness: ControlHarness;
let clientToken = '';
/** Every control API answer, searched for the key at the end. */
const seenBodies: string[] = [];

async function control<T>(pathAndQuery: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> {
  const response = await harness.api(pathAndQuery, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  seenBodies.push(text);
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

async function ok<T>(pathAndQuery: string, method = 'GET', body?: unknown): Promise<T> {
  const answer = await control<T>(pathAndQuery, method, body);
  expect(answer.status, `${method} ${pathAndQuery}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

/** A request as an agent sends it; returns Airlock's id for it, once its row is logged. */
async function send(clientPath: string, body: string, headers: Record<string, string> = {}): Promise<string> {
  const reply = await rawRequest(`${harness.proxy.url}${clientPath}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}`, ...headers },
    body,
  });
  const id = reply.headers['x-airlock-request-id'];
  expect(typeof id).toBe('string');
  await harness.log.flush();
  return id as string;
}

const replay = (id: string, request: ReplayRequest = {}) =>
  control<ReplayResponse & ApiErrorBody>(`/requests/${id}/replay`, 'POST', request);

const upstreamCalls = (pathPart: string) => harness.simulator.received.filter((received) => received.path.includes(pathPart));

beforeAll(async () => {
  harness = await startControlHarness();
  await ok('/profiles', 'POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl });
  await ok('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await ok('/profiles/main/activate', 'POST', {});
  await ok('/profiles/main/prices', 'PUT', { prices: [{ model: 'gpt-4o-mini', inputPer1M: 100, outputPer1M: 100 }], priceMultiplier: 1 });
  clientToken = (await ok<TokenSecretResponse>('/tokens', 'POST', { name: 'agent' })).token;
  // The truncated-body case sends about 60 credits of prompt at once: above the burst guard's default.
  await ok('/burst-limits', 'PUT', { maxRequestsPerMinute: 1000, maxCreditsPerMinute: 1000 });
});
afterAll(async () => {
  await harness?.close();
});

describe('replay through the real proxy', () => {
  it('resends a chat request unchanged as the same client, with the key only in the upstream auth header, and links both rows', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Name a colour.' }] });
    const originalId = await send('/v1/chat/completions', body, { 'x-claude-code-session-id': 'session-1' });
    harness.simulator.reset();

    const { status, body: answer } = await replay(originalId);
    expect(status, JSON.stringify(answer)).toBe(200);
    expect(answer).toMatchObject({ replayOf: originalId, profileId: 'main', edited: false });
    expect(answer.replay.status).toBe(200);
    expect(answer.replay.answerText).toBeTruthy();
    expect(answer.difference.statusChanged).toBe(false);
    expect(answer.original.answerText).toBe(answer.replay.answerText);

    const [upstream] = upstreamCalls('/chat/completions');
    expect(upstream?.authOk).toBe(true);
    expect(JSON.parse(upstream!.body.toString('utf8'))).toEqual(JSON.parse(body));
    expect(findSentinel(upstream!.body)).toBeNull();
    expect(upstream?.headers['x-claude-code-session-id']).toBeUndefined();

    const replayed = await ok<RequestDetail>(`/requests/${answer.replayId}`);
    expect(replayed).toMatchObject({ replayOf: originalId, clientName: 'agent', profileId: 'main', agentSessionId: null });
    const original = await ok<RequestDetail>(`/requests/${originalId}`);
    expect(original.replayIds).toEqual([answer.replayId]);
  });

  it('resends a long conversation, which the log keeps as pieces, byte for byte', async () => {
    const turns = Array.from({ length: 8 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Turn ${index}: ${'a longer message, '.repeat(20)}`,
    }));
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: turns }, null, 1);
    const originalId = await send('/v1/chat/completions', body);
    const db = new DatabaseSync(path.join(harness.dataDir, 'requests.db'), { readOnly: true });
    const stored = db
      .prepare(
        'SELECT b.request_body AS inline, l.chunk_ids AS pieces FROM request_bodies b JOIN request_body_chunk_lists l USING (body_id) WHERE b.request_id = ?',
      )
      .get(originalId);
    db.close();
    expect(stored?.inline).toBeNull();
    expect((JSON.parse(String(stored?.pieces)) as number[]).length).toBeGreaterThan(turns.length);
    harness.simulator.reset();

    const { status, body: answer } = await replay(originalId);
    expect(status, JSON.stringify(answer)).toBe(200);
    expect(upstreamCalls('/chat/completions')[0]?.body.toString('utf8')).toBe(body);
  });

  it('sends an edited Anthropic Messages stream and shows both answers with their difference', async () => {
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
    const originalId = await send('/v1/messages', body, { 'anthropic-version': '2023-06-01' });
    harness.simulator.reset();

    const edited = body.replace('Say hello.', 'Say goodbye, please, in three words.');
    const { status, body: answer } = await replay(originalId, { body: edited });
    expect(status, JSON.stringify(answer)).toBe(200);
    expect(answer.edited).toBe(true);
    const [upstream] = upstreamCalls('/chat/completions');
    expect(upstream?.body.toString('utf8')).toContain('Say goodbye, please, in three words.');
    expect(answer.replay.answerText).not.toBe(answer.original.answerText);
    expect(answer.difference.answerChanged).toBe(true);
    expect(answer.difference.answerDiff?.some((part) => part.kind === 'added')).toBe(true);
    expect(answer.difference.inputTokens).toBeGreaterThan(0);
    const replayed = await ok<RequestDetail>(`/requests/${answer.replayId}`);
    expect(replayed).toMatchObject({ stream: true, protocol: 'anthropic', replayOf: originalId, state: 'done' });
  });

  it('replays a Responses request', async () => {
    const originalId = await send('/v1/responses', JSON.stringify({ model: 'gpt-4o-mini', input: 'Count to three.' }));
    const { status, body: answer } = await replay(originalId);
    expect(status, JSON.stringify(answer)).toBe(200);
    expect(answer.replay).toMatchObject({ status: 200, errorClass: null });
    expect(answer.replay.answerText).toBe(answer.original.answerText);
  });

  it('refuses a body the log kept only in part, or with a value masked, and says the fix; an edit supplies it whole', async () => {
    const long = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x '.repeat(600_000) }] });
    const truncatedId = await send('/v1/chat/completions', long);
    harness.simulator.reset();
    const truncated = await replay(truncatedId);
    expect(truncated.status).toBe(409);
    expect(truncated.body.error).toMatchObject({ code: 'conflict', field: 'body' });
    expect(truncated.body.error.message).toMatch(/first part of this request's body.*--body-file/);
    expect(upstreamCalls('/chat/completions')).toHaveLength(0);
    // The window and `airlock replay --edit` send the logged text back when the user changed nothing.
    const logged = await ok<BodyTextResponse>(`/requests/${truncatedId}/body/request`);
    const sentBack = await replay(truncatedId, { body: logged.text });
    expect(sentBack.status).toBe(409);
    expect(sentBack.body.error.message).toMatch(/first part of this request's body/);
    expect(upstreamCalls('/chat/completions')).toHaveLength(0);
    const whole = await replay(truncatedId, {
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'short' }] }),
    });
    expect(whole.status).toBe(200);
    expect(upstreamCalls('/chat/completions')).toHaveLength(1);

    const withKey = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `my key is ${SENTINEL_KEY}` }] });
    const maskedId = await send('/v1/chat/completions', withKey);
    const masked = await replay(maskedId);
    expect(masked.status).toBe(409);
    expect(masked.body.error.message).toMatch(/\[redacted\].*put the real value back/);

    const invalid = await replay(maskedId, { body: '{"model": "gpt-4o-mini", "messages": [' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toMatch(/not valid JSON/);

    const tooLarge = await replay(maskedId, { body: JSON.stringify({ model: 'gpt-4o-mini', input: 'y'.repeat(7 * 1024 * 1024) }) });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error).toMatchObject({ code: 'invalid', field: 'body' });
    expect(tooLarge.body.error.message).toMatch(/larger than its control API takes \(6 MB\)/);
  });

  it('refuses an upload the log keeps only as its description, instead of sending the description to the gateway', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([Buffer.from([0xff, 0xfb, 0x90, 0x00, 0xc4, 0x01])], { type: 'audio/mpeg' }), 'clip.mp3');
    const uploaded = await fetch(`${harness.proxy.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${clientToken}` },
      body: form,
    });
    await uploaded.arrayBuffer();
    const originalId = uploaded.headers.get('x-airlock-request-id') ?? '';
    await harness.log.flush();
    harness.simulator.reset();

    const refused = await replay(originalId);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', field: 'body' });
    expect(refused.body.error.message).toMatch(/only a description of this request's body.*Send the upload again from its client/);
    expect(upstreamCalls('/audio/transcriptions')).toHaveLength(0);
  });

  it('refuses a request whose path the log masked (an id that looks like a key), instead of sending the placeholder', async () => {
    // OpenAI file ids are `file-` and 22-24 random letters and digits, which the log's shape check masks.
    const reply = await rawRequest(`${harness.proxy.url}/v1/files/file-Xq7RtB2mKp9LwZ4nVc8HsJ3e/content`, {
      method: 'GET',
      headers: { authorization: `Bearer ${clientToken}` },
    });
    const originalId = String(reply.headers['x-airlock-request-id']);
    await harness.log.flush();
    expect((await ok<RequestDetail>(`/requests/${originalId}`)).clientPath).toContain('[redacted]');
    harness.simulator.reset();

    const refused = await replay(originalId);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/path holds "\[redacted\]".*from its client/);
    expect(upstreamCalls('/files/')).toHaveLength(0);
  });

  it('applies the budget cap to a replay like any request: refused before the gateway, logged as a replay', async () => {
    const originalId = await send(
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    );
    await ok('/profiles/main', 'PUT', { name: 'Main', baseUrl: harness.simulator.baseUrl, budget: { dailyCredits: 0.000001 } });
    harness.simulator.reset();
    try {
      const { status, body: answer } = await replay(originalId);
      expect(status).toBe(200);
      expect(answer.replay).toMatchObject({ status: 402, errorClass: 'budget_exceeded' });
      expect(answer.replay.errorMessage).toMatch(/cap/);
      expect(upstreamCalls('/chat/completions')).toHaveLength(0);
      expect((await ok<RequestDetail>(`/requests/${answer.replayId}`)).replayOf).toBe(originalId);
    } finally {
      await ok('/profiles/main', 'PUT', { name: 'Main', baseUrl: harness.simulator.baseUrl, budget: {} });
    }
  });

  it('replays an image creation only under an idempotency key of its own, and a repeat with that key runs once', async () => {
    const originalId = await send('/v1/images/generations', JSON.stringify({ model: 'gpt-image-1', prompt: 'a red cube' }));
    harness.simulator.reset();
    const refused = await replay(originalId);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ field: 'idempotencyKey' });
    expect(refused.body.error.message).toMatch(/charged again.*--idempotency-key/);
    expect(upstreamCalls('/images/generations')).toHaveLength(0);

    const first = await replay(originalId, { idempotencyKey: 'replay-cube-1' });
    const again = await replay(originalId, { idempotencyKey: 'replay-cube-1' });
    expect([first.status, first.body.replay.status, again.status, again.body.replay.status]).toEqual([200, 200, 200, 200]);
    expect(upstreamCalls('/images/generations')).toHaveLength(1);
    expect(again.body.replayId).not.toBe(first.body.replayId);
  });

  it('left the key nowhere: not in the control API answers, nor in the log files', async () => {
    await harness.log.flush();
    expect(seenBodies.filter((text) => findSentinel(text) !== null)).toEqual([]);
    const leaking = readdirSync(harness.dataDir)
      .filter((name) => name.startsWith('requests.db'))
      .filter((name) => findSentinel(readFileSync(path.join(harness.dataDir, name))) !== null);
    expect(leaking).toEqual([]);
  });
});
