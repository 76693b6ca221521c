import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A top-level member Airlock reads, written twice: JSON.parse and Go's encoding/json read the last,
 * gjson's Get (common in Go relays) and simdjson's lookups the first (tidwall/gjson#79, #393;
 * simdjson/simdjson-java#37). Airlock would price, cap and rewrite one and the gateway might bill
 * the other, so it refuses the body before sending anything.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.reset());

describe('a body that repeats a member Airlock reads', () => {
  it.each([
    ['another model', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"model":"gpt-4o"}', 'model'],
    ['the same model', '{"model":"gpt-4o-mini","model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}', 'model'],
    ['stream', '{"model":"gpt-4o-mini","stream":false,"messages":[{"role":"user","content":"hi"}],"stream":true}', 'stream'],
    [
      'an output limit',
      '{"model":"gpt-4o-mini","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"max_tokens":90000}',
      'max_tokens',
    ],
  ])('is refused with a 400 naming the member when it repeats %s, and nothing reaches the gateway', async (_case, body, member) => {
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(400);
    const error = (JSON.parse(response.body) as { error: { message: string; type: string } }).error;
    expect(error.type).toBe('invalid_request');
    expect(error.message).toContain(`names its top-level "${member}" more than once`);
    expect(error.message).toContain('Send each top-level member once');
    expect(response.body).not.toContain(SENTINEL_KEY);
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('keeps a large body with a repeat in its first bytes from going upstream while it arrives: nothing is sent', async () => {
    const body = `{"model":"text-embedding-3-small","model":"text-embedding-3-small","input":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const response = await rawRequest(`${harness.proxy.url}/v1/embeddings`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(400);
    expect(response.body).toContain('names its top-level \\"model\\" more than once');
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('is refused in Anthropic’s error shape on /v1/messages', async () => {
    const body = '{"model":"gpt-4o-mini","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"model":"gpt-4o"}';
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' },
      body,
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('names its top-level "model" more than once') },
    });
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('goes through when only members Airlock does not read repeat, or a model repeats inside messages', async () => {
    const body = '{"model":"gpt-4o-mini","temperature":1,"temperature":0,"messages":[{"role":"user","content":"hi","model":"x"}]}';
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    expect(harness.simulator.received[0]?.body.toString()).toBe(body);
  });
});
