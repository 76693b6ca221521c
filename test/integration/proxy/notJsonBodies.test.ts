import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A model API takes one JSON object and nothing else. A body that is none (empty, plain text, a
 * form) is refused by Airlock in the client's own error shape, as a malformed JSON body is, rather
 * than sent for the gateway to refuse in its words ("We could not parse the JSON body of your
 * request", OpenAI's) under an explanation that lists every cause a 400 can have.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { protocolModes: { messages: 'native', responses: 'native' } } });
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

const BODIES: Array<[string, string, Record<string, string>, RegExp]> = [
  ['empty', '', { 'content-type': 'application/json' }, /request body is empty/],
  ['empty, no content type', '', {}, /request body is empty/],
  ['plain text', 'hello there', { 'content-type': 'text/plain' }, /not a JSON object/],
  // Larger than the part of a body Airlock reads before it starts sending a large one on (earlyForward.ts).
  ['plain text of 3 MiB', 'x'.repeat(3 * 1024 * 1024), { 'content-type': 'text/plain' }, /not a JSON object/],
  ['a JSON array', '[{"model":"gpt-4o-mini"}]', { 'content-type': 'application/json' }, /JSON object/],
  [
    'a form',
    '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\ngpt-4o-mini\r\n--b--\r\n',
    { 'content-type': 'multipart/form-data; boundary=b' },
    /not a JSON object/,
  ],
];

/** Each model API, with where its client reads the error's message. */
const APIS: Array<[string, (json: Record<string, unknown>) => unknown]> = [
  ['/v1/chat/completions', (json) => (json['error'] as { message?: unknown }).message],
  ['/v1/responses', (json) => (json['error'] as { message?: unknown }).message],
  ['/v1/messages', (json) => (json['type'] === 'error' ? (json['error'] as { message?: unknown }).message : undefined)],
  ['/v1/messages/count_tokens', (json) => (json['type'] === 'error' ? (json['error'] as { message?: unknown }).message : undefined)],
];

describe('a model API sent a body that is not a JSON object', () => {
  describe.each(APIS)('%s', (path, messageOf) => {
    it.each(BODIES)(
      '%s: a 400 in the client’s shape that says so, and nothing reaches the gateway',
      async (_label, body, headers, says) => {
        const ended = harness.nextEnd();
        const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers, body });
        expect(response.status).toBe(400);
        expect(messageOf(JSON.parse(response.body) as Record<string, unknown>)).toMatch(says);
        expect((await ended).errorClass).toBe('invalid_request');
        expect(harness.simulator.received).toHaveLength(0);
      },
    );
  });

  // A type no JSON is read under (Go's and Blob senders' application/octet-stream): the body may well be a JSON
  // object, so "not a JSON object" would be untrue; the declared type is what to change.
  it.each(['application/octet-stream', 'application/x-json; charset=utf-8'])(
    'a JSON object declared as %s: refused naming the type, not called no JSON object',
    async (contentType) => {
      const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}',
      });
      expect(response.status).toBe(400);
      const { message } = (JSON.parse(response.body) as { error: { message: string } }).error;
      expect(message).toContain(
        `the request body is declared as ${contentType.split(';')[0]}: this API takes a JSON object, sent as application/json`,
      );
      expect(message).not.toContain('not a JSON object');
      expect(harness.simulator.received).toHaveLength(0);
    },
  );

  it('another API keeps its own rules: an empty POST (a cancel, say) goes to the gateway as it came', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: '{"id":"batch_1","status":"cancelling"}',
    });
    const response = await rawRequest(`${harness.proxy.url}/v1/batches/batch_1/cancel`, { method: 'POST', headers: {}, body: '' });
    expect(response.status).toBe(200);
    expect(harness.simulator.received).toHaveLength(1);
  });
});

describe('a body that is not valid JSON, the gateway key where it breaks', () => {
  /** Every run of six characters of the key: a part that no mask of the whole key finds in the row. */
  const keyParts = Array.from({ length: SENTINEL_KEY.length - 5 }, (_, at) => SENTINEL_KEY.slice(at, at + 6));

  it.each([
    // A config template filled in by hand, the key pasted where a string was due: V8 quoted the ten characters from the break on.
    ['unquoted', `{"model":"gpt-4o-mini","api_key": ${SENTINEL_KEY}}`, 'invalid symbol at line 1, column 35'],
    // A stray character after it: V8 quoted the ten before the break.
    ['before a stray character', `{"model":"gpt-4o-mini","stop":["${SENTINEL_KEY}",x]}`, 'invalid symbol at line 1, column 87'],
  ])('%s: the refusal the row keeps says what broke and where, and quotes none of it', async (_case, body, says) => {
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(400);
    const { errorMessage } = await ended;
    expect(errorMessage).toContain(`the request body is not valid JSON (${says})`);
    expect(keyParts.filter((part) => errorMessage?.includes(part))).toEqual([]);
  });
});
