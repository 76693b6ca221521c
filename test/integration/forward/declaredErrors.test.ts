import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import type { DialectName } from '../../simulator/index.ts';
import type { Fault } from '../../simulator/types.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A gateway that answers a failure with HTTP 200 (protocols/declaredError.ts cites the relays that
 * do), through Airlock as `airlock serve` runs it: the client gets the gateway's answer byte for
 * byte, status included, while the log's row says it failed, with its class and a message naming
 * cause and fix, bills nothing for it, and never holds the key.
 */

let harness: ControlHarness;
let clientToken = '';

const FAILED_502 = 'Bad gateway: no valid response from the upstream model.';

async function control<T>(pathAndQuery: string, init: RequestInit = {}): Promise<T> {
  const response = await harness.api(pathAndQuery, init);
  const text = await response.text();
  expect(response.ok, `${pathAndQuery}: ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

const send = (path: string, body: string): Promise<RawResponse> =>
  rawRequest(`${harness.proxy.url}${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body,
  });

/** The log's row of a request, once written. */
async function rowOf(response: RawResponse): Promise<RequestDetail> {
  await harness.log.flush();
  return control<RequestDetail>(`/requests/${String(response.headers['x-airlock-request-id'])}`);
}

beforeAll(async () => {
  harness = await startControlHarness();
  const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
  // Translated Messages without a native probe: a probe would take the failure scripted for the request.
  const profile = { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl, protocolModes: { messages: 'translate' } };
  await control('/profiles', json('POST', profile));
  await control('/profiles/main/key', json('PUT', { key: SENTINEL_KEY }));
  await control('/profiles/main/activate', { method: 'POST' });
  // Priced, so an answer billed as a success would show a cost.
  await control(
    '/profiles/main/prices',
    json('PUT', { prices: [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 2000 }], priceMultiplier: 1 }),
  );
  clientToken = (await control<{ token: string }>('/tokens', json('POST', { name: 'agent' }))).token;
});
afterAll(async () => {
  await harness?.close();
});
beforeEach(() => {
  harness.simulator.reset();
});

describe('a 200 holding only an error, passed to the client as sent', () => {
  it.each<[string, DialectName, boolean, Fault, string, ErrorClass]>([
    [
      'OpenRouter, not streamed: the error is the body',
      'openrouter',
      false,
      { kind: 'modelFails', status: 502 },
      JSON.stringify({ error: { code: 502, message: FAILED_502 } }),
      'upstream_error',
    ],
    [
      'OpenRouter, not streamed: credits ran out once the model started',
      'openrouter',
      false,
      { kind: 'modelFails', status: 402, code: 'insufficient_quota' },
      JSON.stringify({ error: { code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/credits' } }),
      'quota_exhausted',
    ],
    [
      'OpenRouter, streamed: a processing comment, then only the error chunk',
      'openrouter',
      true,
      { kind: 'modelFails', status: 429, message: 'Rate limit exceeded upstream' },
      '"error":{"code":429,"message":"Rate limit exceeded upstream"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}',
      'rate_limited',
    ],
    [
      'vLLM, streamed: only the error event, then [DONE]',
      'vllm',
      true,
      { kind: 'modelFails', status: 400, message: 'This model cannot take more requests now' },
      'data: {"error":{"message":"This model cannot take more requests now","type":"invalid_request_error","param":null,"code":400}}\n\ndata: [DONE]\n\n',
      'bad_request',
    ],
  ])('%s', async (_name, dialect, stream, fault, sent, errorClass) => {
    harness.simulator.useDialect(dialect);
    harness.simulator.script(fault);
    const response = await send('/v1/chat/completions', chatBody({ stream }));

    expect(response.status).toBe(200);
    if (stream) expect(response.body).toContain(sent);
    else expect(response.body).toBe(sent);

    const row = await rowOf(response);
    expect(row.status).toBe(200);
    expect(row.errorClass).toBe(errorClass);
    expect(row.errorMessage).toMatch(/^The gateway answered HTTP 200, but its (body|stream)/);
    // The class's fix, as the window's explanation gives it too.
    expect(row.errorMessage).toContain(row.explanation?.fix);
    expect(row.costCredits).toBeNull();
    expect(row.inputTokens).toBeNull();
  });

  it('the stream as sent: an OpenRouter error chunk reaches the client byte for byte', async () => {
    harness.simulator.useDialect('openrouter');
    harness.simulator.script({ kind: 'modelFails', status: 502 });
    const response = await send('/v1/chat/completions', chatBody({ stream: true }));
    // The relay passes each event as it was parsed (a comment's space after the colon is not kept); the error event is the gateway's.
    const events = response.body.split('\n\n').filter((event) => event !== '' && !event.startsWith(':'));
    expect(events.map((event) => event.replace(/"created":\d+/, '"created":0').replace(/chatcmpl-sim\d+/, 'chatcmpl-sim'))).toEqual([
      `data: {"id":"chatcmpl-sim","object":"chat.completion.chunk","created":0,"model":"gpt-4o-mini","error":{"code":502,"message":"${FAILED_502}"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
    ]);
  });

  it('a gateway quoting the key: neither the client, the row nor its message holds it', async () => {
    harness.simulator.useDialect('openrouter');
    harness.simulator.script({
      kind: 'modelFails',
      status: 401,
      code: 'invalid_api_key',
      message: 'Incorrect API key provided',
      quoteKey: true,
    });
    const response = await send('/v1/chat/completions', chatBody());
    expect(response.status).toBe(200);
    expect(response.body).toMatch(/^\{"error":\{"code":401,"message":"Incorrect API key provided: [^"]+"\}\}$/);
    expect(findSentinel(response.body)).toBeNull();

    const row = await rowOf(response);
    expect(row.errorClass).toBe('auth');
    expect(row.errorMessage).toContain('Incorrect API key provided');
    expect(findSentinel(row.errorMessage ?? '')).toBeNull();
    expect(findSentinel(JSON.stringify(row))).toBeNull();
  });

  it('a rejected key inside a 200 opens no breaker: the next request still reaches the gateway', async () => {
    harness.simulator.useDialect('openrouter');
    harness.simulator.script({ kind: 'modelFails', status: 401, code: 'invalid_api_key', message: 'Invalid upstream credentials' });
    expect((await send('/v1/chat/completions', chatBody())).status).toBe(200);
    const next = await send('/v1/chat/completions', chatBody());
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body)).toMatchObject({ choices: [{ message: { role: 'assistant' } }] });
    expect(harness.simulator.received).toHaveLength(2);
    const row = await rowOf(next);
    expect(row.errorClass).toBeNull();
    expect(row.costCredits).toBeGreaterThan(0);
  });
});

describe('a 200 holding only an error, under translation', () => {
  it("a Messages client gets the error in Anthropic's shape, not an empty message", async () => {
    harness.simulator.useDialect('openrouter');
    harness.simulator.script({ kind: 'modelFails', status: 402, code: 'insufficient_quota' });
    const response = await send(
      '/v1/messages',
      JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(response.status).toBe(402);
    expect(JSON.parse(response.body)).toMatchObject({ type: 'error', error: { message: expect.stringContaining('Insufficient credits') } });
    const row = await rowOf(response);
    expect(row.errorClass).toBe('quota_exhausted');
    expect(row.costCredits).toBeNull();
  });
});

describe('an error chunk in a translated Messages stream', () => {
  // Claude Code retries an error event only when it says overloaded_error (its status is unknown mid-stream).
  it.each<[number, string, ErrorClass]>([
    [503, 'overloaded_error', 'upstream_error'],
    [429, 'rate_limit_error', 'rate_limited'],
  ])('a %i is the error event Anthropic sends for it (%s), with the cause and fix', async (status, type, errorClass) => {
    harness.simulator.useDialect('openrouter');
    harness.simulator.script({ kind: 'modelFails', status, message: 'The provider is busy' });
    const response = await send(
      '/v1/messages',
      JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    );
    const events = response.body.split('\n\n').filter((event) => event.startsWith('event: error'));
    expect(events).toHaveLength(1);
    const error = JSON.parse(events[0]!.slice(events[0]!.indexOf('data: ') + 6)) as { error: { type: string; message: string } };
    const row = await rowOf(response);
    expect(row.errorClass).toBe(errorClass);
    expect(error.error.type).toBe(type);
    expect(error.error.message).toContain('The provider is busy');
    expect(error.error.message).toContain(row.explanation?.fix);
  });
});

describe('an error chunk in a translated Responses stream', () => {
  // Codex stops at once on these two codes and shows them; any other it takes for a dropped stream and sends again.
  it.each<[number, string, string, ErrorClass]>([
    [402, 'insufficient_quota', 'insufficient_quota', 'quota_exhausted'],
    [429, 'rate_limit_exceeded', 'Rate limit exceeded upstream', 'rate_limited'],
    [503, 'server_error', 'The provider is busy', 'upstream_error'],
  ])('a %i ends response.failed with code %s', async (status, code, said, errorClass) => {
    harness.simulator.useDialect('openrouter');
    harness.simulator.script({ kind: 'modelFails', status, ...(status === 402 ? { code: said } : { message: said }) });
    const response = await send('/v1/responses', JSON.stringify({ model: 'gpt-4o-mini', stream: true, input: 'hi' }));
    const failed = response.body.split('\n\n').find((event) => event.startsWith('event: response.failed'));
    expect(failed).toBeDefined();
    const data = JSON.parse(failed!.slice(failed!.indexOf('data: ') + 6)) as { response: { error: { code: string } } };
    expect(data.response.error.code).toBe(code);
    expect((await rowOf(response)).errorClass).toBe(errorClass);
  });
});
