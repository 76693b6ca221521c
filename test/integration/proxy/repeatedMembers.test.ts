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

/**
 * Go's encoding/json matches an object's keys to a struct's fields without case (golang/go#14750;
 * modelcontextprotocol/go-sdk#805 treats it as a security issue), so a Go relay reads `"MODEL"` as
 * `model` where JSON.parse, Python and Airlock see another member: refused like a repeat.
 */
describe('a body that names a member Airlock reads in another letter case', () => {
  it.each([
    ['beside the model', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"MODEL":"gpt-4o"}', 'MODEL', 'model'],
    ['alone', '{"Model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}', 'Model', 'model'],
    [
      'as an output limit',
      '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"Max_Tokens":90000}',
      'Max_Tokens',
      'max_tokens',
    ],
  ])(
    'is refused with a 400 naming both spellings when it is written %s, and nothing reaches the gateway',
    async (_case, body, written, member) => {
      const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
      expect(response.status).toBe(400);
      const error = (JSON.parse(response.body) as { error: { message: string; type: string } }).error;
      expect(error.type).toBe('invalid_request');
      expect(error.message).toContain(`top-level "${written}" differs from "${member}" only in letter case`);
      expect(error.message).toContain(`Write it "${member}"`);
      expect(harness.simulator.received).toHaveLength(0);
    },
  );

  it('keeps a large body with one in its first bytes from going upstream while it arrives: nothing is sent', async () => {
    const body = `{"model":"text-embedding-3-small","MODEL":"text-embedding-3-large","input":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const response = await rawRequest(`${harness.proxy.url}/v1/embeddings`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(400);
    expect(response.body).toContain('top-level \\"MODEL\\" differs from \\"model\\" only in letter case');
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('goes through when keys Airlock does not read are in upper case, or a member in another case is nested', async () => {
    const body = '{"model":"gpt-4o-mini","Temperature":1,"messages":[{"role":"user","content":"hi"}],"metadata":{"Model":"x"}}';
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    expect(harness.simulator.received[0]?.body.toString()).toBe(body);
  });
});

// Go's FormValue and Werkzeug's MultiDict read a repeated form field's first value, Django's MultiValueDict its last.
describe('a form that repeats a field Airlock reads', () => {
  const boundary = 'airlock-test-boundary';
  const editImage = (fields: ReadonlyArray<readonly [string, string]>) =>
    rawRequest(`${harness.proxy.url}/v1/images/edits`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: [
        ...fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nPNGDATA\r\n`,
        `--${boundary}--\r\n`,
      ].join(''),
    });

  it('is refused with a 400 naming the field, and nothing reaches the gateway', async () => {
    const response = await editImage([
      ['model', 'gpt-image-1'],
      ['n', '1'],
      ['prompt', 'a cat'],
      ['n', '10'],
    ]);
    expect(response.status).toBe(400);
    expect((JSON.parse(response.body) as { error: { message: string } }).error.message).toContain(
      'the form names its "n" field more than once',
    );
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('goes through when each field comes once', async () => {
    const response = await editImage([
      ['model', 'gpt-image-1'],
      ['n', '1'],
      ['prompt', 'a cat'],
    ]);
    expect(response.status).toBe(200);
    expect(harness.simulator.received).toHaveLength(1);
  });
});
