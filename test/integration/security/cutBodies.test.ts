import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A key of 32 hex characters and no prefix, as Azure OpenAI's are (GitGuardian's detector for them
 * lists such keys: docs.gitguardian.com/secrets-detection/secrets-detection-engine/detectors/specifics/azure_open_ai_api_key).
 * The log's masking by shape takes a hex run for a key only from 32 characters on, so a cut
 * leaving most of this key is masked only where the key itself is known.
 */
const HEX_KEY = '3f9c0a7be2d14c68a5b1e07f4d92c8ab';
/** What Airlock keeps of a gateway's error body (upstreamAttempts.ts). */
const ERROR_BODY_LIMIT_BYTES = 256 * 1024;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ apiKey: HEX_KEY, profile: { retry: { maxRetries: 0, maxRetryAfterMs: 0 } } });
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.reset());

const errorJson = (message: string): string => JSON.stringify({ error: { message, type: 'invalid_request_error' } });

/** An error body that quotes the key so that Airlock's cut falls `keyCharsKept` characters into it. */
function errorBodyCutInKey(keyCharsKept: number, key: string): string {
  const prefix = '{"error":{"message":"Incorrect API key provided: ';
  const filler = 'x'.repeat(ERROR_BODY_LIMIT_BYTES - keyCharsKept - prefix.length);
  return `${prefix}${filler}${key}, see the docs"}}`;
}

describe('an error body longer than Airlock keeps, the key where the cut falls', () => {
  it.each([
    ['raw', HEX_KEY],
    ['percent-encoded', [...HEX_KEY].map((char) => `%${char.charCodeAt(0).toString(16)}`).join('')],
  ])('%s: the log keeps none of the key, not even the part before the cut', async (_form, written) => {
    for (const keyCharsKept of [4, written.length / 2, written.length - 2]) {
      harness.simulator.script({
        kind: 'text',
        status: 400,
        contentType: 'application/json',
        text: errorBodyCutInKey(keyCharsKept, written),
      });
      const { response, end } = await harness.postChat();
      expect(response.status).toBe(400);
      const logged = end.bodies.responseBody?.toString('utf8') ?? '';
      // The body was kept up to the limit, and what was kept of the key is masked with it.
      expect(logged.startsWith('{"error":{"message":"Incorrect API key provided: xxx')).toBe(true);
      expect(logged.length).toBeGreaterThan(ERROR_BODY_LIMIT_BYTES - written.length - 20);
      expect(logged).not.toContain(HEX_KEY.slice(0, 4));
      expect(logged).not.toContain(written.slice(0, 4));
      expect(response.body).not.toContain(HEX_KEY.slice(0, 4));
    }
  });
});

describe('an answer longer than the log keeps of a body, the key where the cut falls', () => {
  /** The smallest `bodyCaptureKiB` the settings allow: the log keeps the first 16 KiB of each body. */
  const captureLimitBytes = 16 * 1024;
  let small: Harness;

  beforeAll(async () => {
    small = await startHarness({ apiKey: HEX_KEY, captureLimitBytes, profile: { retry: { maxRetries: 0, maxRetryAfterMs: 0 } } });
  });
  afterAll(() => small.close());

  /** The text `wrap` makes of a filler and the key, the key's `keyCharsKept`-th character the capture's last byte. */
  const cutInKey = (wrap: (inner: string) => string, keyCharsKept: number): string => {
    const innerAt = wrap('(inner)').indexOf('(inner)');
    return wrap(`${'x'.repeat(captureLimitBytes - keyCharsKept - innerAt)}${HEX_KEY}`);
  };

  it.each([
    [
      'a passed-through file',
      'GET',
      '/v1/files/file-1/content',
      200,
      'text/plain',
      (kept: number) => cutInKey((inner) => `key: ${inner}\n`, kept),
    ],
    ['a chat answer', 'POST', '/v1/chat/completions', 200, 'application/json', (kept: number) => cutInKey(chatAnswerText, kept)],
    ['a gateway error', 'POST', '/v1/chat/completions', 400, 'application/json', (kept: number) => cutInKey(errorJson, kept)],
  ])('%s: the log keeps none of the key, and the client gets it masked whole', async (_name, method, path, status, contentType, text) => {
    for (const keyCharsKept of [4, 16, 30]) {
      const body = text(keyCharsKept);
      small.simulator.script({ kind: 'text', status, contentType, text: body });
      const ended = small.nextEnd();
      const response = await rawRequest(`${small.proxy.url}${path}`, {
        method,
        headers: JSON_HEADERS,
        ...(method === 'POST' ? { body: chatBody() } : {}),
      });
      const end = await ended;
      expect(response.status).toBe(status);
      expect(response.body).not.toContain(HEX_KEY.slice(0, 4));
      expect(end.bodies.responseBodyTruncated).toBe(true);
      const logged = end.bodies.responseBody?.toString('utf8') ?? '';
      expect(Buffer.byteLength(logged)).toBeLessThanOrEqual(captureLimitBytes);
      expect(logged).not.toContain(HEX_KEY.slice(0, 4));
    }
  });
});

describe('a request longer than the log keeps of a body, the key the user pasted where the cut falls', () => {
  it('the log keeps none of it (an agent that read a .env file sends it on every turn)', async () => {
    const captureLimitBytes = 16 * 1024;
    const small = await startHarness({ apiKey: HEX_KEY, captureLimitBytes });
    try {
      for (const keyCharsKept of [4, 16, 30]) {
        const wrap = (inner: string): string => chatBody({ messages: [{ role: 'user', content: `.env: OPENAI_API_KEY=${inner}` }] });
        const innerAt = wrap('(inner)').indexOf('(inner)');
        const body = wrap(`${'x'.repeat(captureLimitBytes - keyCharsKept - innerAt)}${HEX_KEY}`);
        const ended = small.nextEnd();
        const response = await rawRequest(`${small.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
        const end = await ended;
        expect(response.status).toBe(200);
        expect(end.bodies.requestBodyTruncated).toBe(true);
        expect(end.bodies.requestBody?.toString('utf8')).not.toContain(HEX_KEY.slice(0, 4));
      }
    } finally {
      await small.close();
    }
  });
});

describe('a request refused as not valid JSON, longer than the log keeps, the key where the cut falls', () => {
  it('its row keeps the start, cut and marked so, with none of the key', async () => {
    const captureLimitBytes = 16 * 1024;
    const small = await startHarness({ apiKey: HEX_KEY, captureLimitBytes });
    try {
      for (const keyCharsKept of [4, 16, 30]) {
        // No `stream` member: the body is read whole before it is planned (earlyForward.ts), and refused then.
        const wrap = (inner: string): string => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"${inner}"}],, oops`;
        const innerAt = wrap('(inner)').indexOf('(inner)');
        const body = `${wrap(`${'x'.repeat(captureLimitBytes - keyCharsKept - innerAt)}${HEX_KEY}`)}${' '.repeat(captureLimitBytes)}`;
        const ended = small.nextEnd();
        const response = await rawRequest(`${small.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
        const end = await ended;
        expect(response.status).toBe(400);
        expect(small.simulator.received).toHaveLength(0);
        expect(end.bodies.requestBodyTruncated).toBe(true);
        const logged = end.bodies.requestBody?.toString('utf8') ?? '';
        expect(logged.startsWith('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"xxx')).toBe(true);
        expect(Buffer.byteLength(logged)).toBeLessThanOrEqual(captureLimitBytes);
        expect(logged).not.toContain(HEX_KEY.slice(0, 4));
      }
    } finally {
      await small.close();
    }
  });
});
