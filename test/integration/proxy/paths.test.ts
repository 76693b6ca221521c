import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';

/** Far beyond any wait for an event in these tests, so a close before it has one cause. */
const NEXT_CHUNK_AFTER_MS = 60_000;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    profile: { modelAliases: { 'my-model': 'deepseek-chat' } },
    simulator: { maxContextChars: 64 * 1024 * 1024 },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('path correction', () => {
  it.each([
    ['/v1/models', '/v1/models'],
    ['/v1/v1/models', '/v1/models'],
    ['/v1/v1/v1/models', '/v1/models'],
    ['/models', '/v1/models'],
    ['/v1/models?limit=5&after=x', '/v1/models?limit=5&after=x'],
  ])('%s reaches the gateway as %s', async (clientPath, upstreamPath) => {
    const response = await rawRequest(`${harness.proxy.url}${clientPath}`);
    expect(response.status).toBe(200);
    expect(harness.simulator.received[0]?.path).toBe(upstreamPath);
  });

  it.each(['HEAD', 'GET'])('answers %s / itself, as clients probe it', async (method) => {
    const response = await rawRequest(`${harness.proxy.url}/`, { method });
    expect(response.status).toBe(200);
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('carries a request id on every response', async () => {
    const response = await rawRequest(`${harness.proxy.url}/v1/models`);
    expect(response.headers['x-airlock-request-id']).toMatch(/^alk_[0-9a-f]{32}$/);
  });
});

describe('bodies', () => {
  // 40 MB is read into one buffer of its own as it arrives, 20 MB kept as the reads it came in.
  it.each([20, 40])('forwards a %i MB JSON body byte for byte', async (megabytes) => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', input: 'x'.repeat(megabytes * 1024 * 1024) });
    const response = await rawRequest(`${harness.proxy.url}/v1/embeddings`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    expect(sha256(harness.simulator.received[0]!.body)).toBe(sha256(body));
  });

  it('splices the alias and the usage request into a large streamed body without re-serialising it', async () => {
    const content = 'é'.repeat(3 * 1024 * 1024);
    const body = JSON.stringify({ messages: [{ role: 'user', content }], model: 'my-model', stream: true });
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    const sent = JSON.parse(harness.simulator.received[0]!.body.toString('utf8')) as Record<string, unknown>;
    expect(sent.model).toBe('deepseek-chat');
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect((sent.messages as { content: string }[])[0]!.content).toBe(content);
    expect(response.body).not.toContain('"choices":[]');
  });

  it('sends a small streamed body as the client wrote it, with only the model and the usage request changed', async () => {
    const rest = '"seed": 12345678901234567890, "temperature": 1.0, "stream": true,\n';
    const messages = '"messages": [{"role": "user", "content": "caf\\u00e9 \\/ ok"}] }';
    const body = `{ "model": "my-model", ${rest} "stream_options": {"include_obfuscation": false}, ${messages}`;
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    expect(harness.simulator.received[0]!.body.toString('utf8')).toBe(
      `{ "model":"deepseek-chat", ${rest} "stream_options":{"include_obfuscation":false,"include_usage":true}, ${messages}`,
    );
    expect(response.body).not.toContain('"choices":[]');
  });

  it('asks for usage in a large streamed body whose stream_options turned it off, and keeps the usage chunk from the client', async () => {
    const content = 'x'.repeat(1024 * 1024);
    const body = JSON.stringify({
      model: 'deepseek-chat',
      stream: true,
      stream_options: { include_usage: false },
      messages: [{ role: 'user', content }],
    });
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    const sent = harness.simulator.received[0]!.body.toString('utf8');
    expect(sent).toBe(body.replace('{"include_usage":false}', '{"include_usage":true}'));
    expect(response.body).not.toContain('"choices":[]');
  });

  // Windows tools save UTF-8 with a byte order mark (PowerShell 5's Out-File), and curl sends a file as it is.
  it('takes a JSON body that starts with a UTF-8 byte order mark, and sends it without the mark', async () => {
    const body = chatBody({ model: 'my-model' });
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: `\uFEFF${body}`,
    });
    expect(response.status).toBe(200);
    expect(harness.simulator.received[0]!.body.toString('utf8')).toBe(body.replace('my-model', 'deepseek-chat'));
  });

  // `curl -d` declares a form, `fetch` with a string body text/plain, `requests.post(data=...)` nothing. Gateways
  // differ: LiteLLM reads such a body as JSON anyway (proxy/common_utils/http_parsing_utils.py, `_read_request_body`), one-api
  // binds only application/json (common/gin.go, `UnmarshalBodyReusable`), OpenAI answers "you must provide a model parameter".
  it.each([
    ['text/plain;charset=UTF-8', 'application/json'],
    ['application/x-www-form-urlencoded', 'application/json'],
    [undefined, 'application/json'],
    ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
  ])('reads a JSON object sent as %s as JSON, and tells the gateway it is %s', async (declared, forwarded) => {
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: declared === undefined ? {} : { 'content-type': declared },
      body: chatBody({ model: 'my-model' }),
    });
    expect(response.status, response.body).toBe(200);
    const received = harness.simulator.received[0]!;
    expect(received.headers['content-type']).toBe(forwarded);
    expect(JSON.parse(received.body.toString('utf8')).model).toBe('deepseek-chat');
    const end = await ended;
    expect(end.usage).not.toBeNull();
    expect(end.usageSource).toBe('reported');
  });

  // A model API's is refused instead (notJsonBodies.test.ts): they take nothing but a JSON object.
  it('passes a plain-text body that is not a JSON object on as it came, to an API that is no model API', async () => {
    const response = await rawRequest(`${harness.proxy.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'model=my-model',
    });
    expect(response.status).toBe(400);
    expect(harness.simulator.received[0]!.headers['content-type']).toBe('text/plain');
    expect(harness.simulator.received[0]!.body.toString('utf8')).toBe('model=my-model');
  });

  it('resolves an alias in a small body', async () => {
    await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: 'my-model' }),
    });
    expect(JSON.parse(harness.simulator.received[0]!.body.toString('utf8')).model).toBe('deepseek-chat');
  });
});

describe('headers', () => {
  it('replaces the client credentials with the gateway key and drops hop-by-hop and redirecting headers', async () => {
    await rawRequest(`${harness.proxy.url}/v1/models`, {
      headers: {
        authorization: 'Bearer client-token',
        'x-api-key': 'another',
        connection: 'keep-alive, x-custom-hop',
        'x-custom-hop': '1',
        'x-forwarded-host': 'evil.example',
        'user-agent': 'test-agent/1.0',
      },
    });
    const headers = harness.simulator.received[0]!.headers;
    expect(harness.simulator.received[0]!.authOk).toBe(true);
    expect(headers['x-api-key']).toBeUndefined();
    expect(headers['x-custom-hop']).toBeUndefined();
    expect(headers['x-forwarded-host']).toBeUndefined();
    expect(headers['user-agent']).toBe('test-agent/1.0');
  });
});

describe('client abort', () => {
  it('closes the upstream connection when the client leaves a stream, not at the next chunk it fails to pass on', async () => {
    // The next chunk is a minute away: only the client's leaving can close the upstream before it.
    harness.simulator.script({ kind: 'slowChunks', intervalMs: NEXT_CHUNK_AFTER_MS });
    await new Promise<void>((resolve, reject) => {
      const req = request(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.once('close', () => reject(new Error('the stream closed before its first chunk')));
      req.end(chatBody({ stream: true }));
    });
    await expect(harness.simulator.waitForClose(0, NEXT_CHUNK_AFTER_MS / 2)).resolves.toBeGreaterThan(0);
  });
});
