import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL_IDS,
  DEFAULT_STREAM_CHUNK_COUNT,
  maskAuthorization,
  startGatewaySimulator,
  type GatewaySimulator,
} from '../../simulator/index.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { contentOf, parsedChunks, sseData } from './sse.ts';

const AUTH = { authorization: `Bearer ${SENTINEL_KEY}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const MAX_CONTEXT_CHARS = 1000;

let simulator: GatewaySimulator;

beforeAll(async () => {
  simulator = await startGatewaySimulator({ maxContextChars: MAX_CONTEXT_CHARS });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

function chat(body: object, headers: Record<string, string> = JSON_AUTH): Promise<Response> {
  return fetch(`${simulator.baseUrl}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
}
const hello = { model: 'qwen-plus', messages: [{ role: 'user', content: 'Say hello' }] };

describe('authentication: only the exact `Bearer <key>` form', () => {
  it.each<[string, Record<string, string>, number]>([
    ['exact Bearer form', AUTH, 200],
    ['no header', {}, 401],
    ['doubled Bearer', { authorization: `Bearer Bearer ${SENTINEL_KEY}` }, 401],
    ['no space', { authorization: `Bearer${SENTINEL_KEY}` }, 401],
    ['two spaces', { authorization: `Bearer  ${SENTINEL_KEY}` }, 401],
    ['quoted key', { authorization: `Bearer "${SENTINEL_KEY}"` }, 401],
    ['key alone', { authorization: SENTINEL_KEY }, 401],
    ['x-api-key instead', { 'x-api-key': SENTINEL_KEY }, 401],
    ['wrong key', { authorization: 'Bearer sk-wrong-key-0000' }, 401],
  ])('%s -> %i', async (_name, headers, status) => {
    const response = await fetch(`${simulator.baseUrl}/models`, { headers });
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error?: { code: string; type: string } };
    if (status === 401) expect(body.error).toMatchObject({ code: 'invalid_api_key', type: 'invalid_request_error' });
  });
});

describe('contract', () => {
  it('lists models with a request id', async () => {
    const response = await fetch(`${simulator.baseUrl}/models`, { headers: AUTH });
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await response.json()) as { object: string; data: Array<{ id: string; object: string; owned_by: string }> };
    expect(body.object).toBe('list');
    expect(body.data.map((model) => model.id)).toEqual(DEFAULT_MODEL_IDS);
    expect(body.data[0]).toEqual({ id: 'gpt-4o-mini', object: 'model', owned_by: 'openai' });
  });

  it('answers a non-streaming chat completion', async () => {
    const response = await chat(hello);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'qwen-plus',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Simulated reply to: Say hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 8, total_tokens: 11 },
    });
  });

  it.each([
    [true, 2],
    [false, 1],
  ])('streams chunks then [DONE]; include_usage %s gives %i closing chunks', async (includeUsage, closingChunks) => {
    const response = await chat({ ...hello, stream: true, stream_options: { include_usage: includeUsage } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const text = await response.text();
    expect(sseData(text).at(-1)).toBe('[DONE]');
    const chunks = parsedChunks(text);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices?.[0]?.delta.role).toBe('assistant');
    expect(contentOf(chunks)).toHaveLength(DEFAULT_STREAM_CHUNK_COUNT);
    expect(contentOf(chunks).join('')).toBe('Simulated reply to: Say hello');
    expect(chunks.length).toBe(1 + DEFAULT_STREAM_CHUNK_COUNT + closingChunks);
    const finish = chunks[1 + DEFAULT_STREAM_CHUNK_COUNT];
    expect(finish?.choices?.[0]?.finish_reason).toBe('stop');
    const usageChunk = chunks.find((chunk) => chunk.usage !== undefined);
    if (includeUsage) expect(usageChunk).toMatchObject({ choices: [], usage: { total_tokens: 11 } });
    else expect(usageChunk).toBeUndefined();
  });

  it.each<[string, string, number, string]>([
    ['malformed JSON', '{"model": "qwen-plus", ', 400, 'invalid_json'],
    ['unknown model', JSON.stringify({ ...hello, model: 'qwen-plsu' }), 404, 'model_not_found'],
    [
      'context over the limit',
      JSON.stringify({ ...hello, messages: [{ role: 'user', content: 'x'.repeat(MAX_CONTEXT_CHARS + 1) }] }),
      400,
      'context_length_exceeded',
    ],
    [
      'data URL without a MIME type',
      JSON.stringify({ ...hello, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:;base64,AAAA' } }] }] }),
      400,
      'invalid_request',
    ],
  ])('refuses %s with JSON %i', async (_name, body, status, code) => {
    const response = await fetch(`${simulator.baseUrl}/chat/completions`, { method: 'POST', headers: JSON_AUTH, body });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ error: { code } });
  });

  it('accepts image parts with a data URL or a remote URL', async () => {
    const content = [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
    ];
    const response = await chat({ model: 'qwen-vl-max', messages: [{ role: 'user', content }] });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: 'Simulated reply to: What is this?' } }] });
  });

  it('answers embeddings plausibly', async () => {
    const response = await fetch(`${simulator.baseUrl}/embeddings`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: JSON.stringify({ model: 'text-embedding-3-small', input: ['a', 'b'] }),
    });
    const body = (await response.json()) as { data: Array<{ index: number; embedding: number[] }>; usage: object };
    expect(body.data.map((item) => [item.index, item.embedding.length])).toEqual([
      [0, 8],
      [1, 8],
    ]);
    expect(body.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
  });

  it('answers an unknown /v1 path with JSON 404', async () => {
    const response = await fetch(`${simulator.baseUrl}/responses`, { method: 'POST', headers: JSON_AUTH, body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it.each(['/', '/models', '/chat/completions', '/v1/v1/models', '/v1/v1/chat/completions'])(
    'answers %s with an HTML 404, as a misrouted proxy',
    async (path) => {
      const response = await fetch(`${simulator.url}${path}`, {
        method: path.endsWith('completions') ? 'POST' : 'GET',
        headers: JSON_AUTH,
        ...(path.endsWith('completions') ? { body: JSON.stringify(hello) } : {}),
      });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('x-request-id')).toMatch(/^req_/);
      expect(await response.text()).toMatch(/^<!DOCTYPE html>/);
    },
  );
});

describe('recording', () => {
  it('keeps method, path, masked headers and the exact body bytes', async () => {
    const body = JSON.stringify({ ...hello, messages: [{ role: 'user', content: 'ünïcode ✓' }] });
    await (await fetch(`${simulator.baseUrl}/chat/completions?trace=1`, { method: 'POST', headers: JSON_AUTH, body })).text();
    await (await fetch(`${simulator.baseUrl}/models`, { headers: { authorization: 'Bearer sk-wrong-key-0000' } })).text();
    const [first, second] = simulator.received;
    expect(first).toMatchObject({ method: 'POST', path: '/v1/chat/completions?trace=1', authOk: true, closedAtMs: null });
    expect(first?.headers.authorization).toBe(maskAuthorization(`Bearer ${SENTINEL_KEY}`));
    expect(first?.body.equals(Buffer.from(body))).toBe(true);
    expect(second).toMatchObject({ method: 'GET', path: '/v1/models', authOk: false });
    expect(findSentinel(JSON.stringify(simulator.received))).toBeNull();
  });

  it('records no bodies when told not to', async () => {
    const quiet = await startGatewaySimulator({ recordBodies: false });
    try {
      await (await fetch(`${quiet.baseUrl}/chat/completions`, { method: 'POST', headers: JSON_AUTH, body: JSON.stringify(hello) })).text();
      expect(quiet.received).toHaveLength(1);
      expect(quiet.received[0]?.body.length).toBe(0);
    } finally {
      await quiet.close();
    }
  });

  it('accepts any configured key and serves the configured models', async () => {
    const custom = await startGatewaySimulator({ validKeys: ['sk-demo-key-123456'], models: ['only-model'] });
    try {
      const response = await fetch(`${custom.baseUrl}/models`, { headers: { authorization: 'Bearer sk-demo-key-123456' } });
      expect(await response.json()).toMatchObject({ data: [{ id: 'only-model' }] });
    } finally {
      await custom.close();
    }
  });
});

describe('per-key request limits', () => {
  it('a request refused for its key’s limit leaves the scripted answer for the next one', async () => {
    simulator.setKeyRequestLimits({ [SENTINEL_KEY]: 0 }, 30);
    simulator.script({ kind: 'reply', content: 'scripted-answer' });
    try {
      const limited = await chat(hello);
      expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '30']);
      simulator.setKeyRequestLimits({});
      const answered = (await (await chat(hello)).json()) as { choices: Array<{ message: { content: string } }> };
      expect(answered.choices[0]?.message.content).toBe('scripted-answer');
    } finally {
      simulator.setKeyRequestLimits({});
    }
  });
});
