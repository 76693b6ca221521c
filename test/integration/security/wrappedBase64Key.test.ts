import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatAnswerText, chatBody } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

// MIME writes base64 in lines of at most 76 characters (RFC 2045 section 6.8, Python's
// base64.encodebytes, Java's Base64.getMimeEncoder): a gateway echoing the Authorization header so
// encoded cuts the key's base64 form with line breaks, which every base64 decoder reads past.
const mimeBase64 = (text: string, lineBreak: string): string =>
  Buffer.from(text)
    .toString('base64')
    .replace(/(.{76})(?=.)/g, `$1${lineBreak}`);

/** The bytes each long base64 run of the text decodes to, line breaks (raw or JSON-escaped) read past. */
function decodedRuns(text: string): string {
  const joined = text.replace(/\\r|\\n|\s/g, '');
  return (joined.match(/[A-Za-z0-9+/]{40,}={0,2}/g) ?? []).map((run) => Buffer.from(run, 'base64').toString('latin1')).join(' ');
}

const keyIn = (text: string): boolean => findSentinel(text) !== null || decodedRuns(text).includes(SENTINEL_KEY.slice(3, 40));

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { retry: { maxRetries: 0, maxRetryAfterMs: 0 } } });
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.reset());

describe('a gateway that echoes the key in base64 wrapped into MIME lines', () => {
  it.each([
    ['a raw CRLF', '\r\n'],
    ['a JSON-escaped \\r\\n', '\\r\\n'],
  ])("an error's words, lines joined by %s, reach neither the client nor the log", async (_name, lineBreak) => {
    const echo = mimeBase64(`Authorization: Bearer ${SENTINEL_KEY}`, lineBreak);
    const text = lineBreak === '\r\n' ? `invalid credentials:\r\n${echo}\r\n` : `{"error":{"message":"invalid credentials: ${echo}"}}`;
    harness.simulator.script({ kind: 'text', status: 401, contentType: lineBreak === '\r\n' ? 'text/plain' : 'application/json', text });
    const { response, end } = await harness.postChat(chatBody());
    expect(response.status).toBe(401);
    expect(response.body).toContain('invalid credentials');
    expect(keyIn(response.body)).toBe(false);
    expect(keyIn(JSON.stringify(response.headers))).toBe(false);
    expect(end.errorMessage).toContain('invalid credentials');
    expect(keyIn(JSON.stringify({ ...end, bodies: null }))).toBe(false);
    expect(keyIn(end.bodies?.responseBody?.toString('latin1') ?? '')).toBe(false);
  });

  it('a whole chat answer holding it is passed on masked, as JSON, its length true', async () => {
    const content = `debug: ${mimeBase64(`Bearer ${SENTINEL_KEY}`, '\n')}`;
    const answer = chatAnswerText(content);
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: answer });
    const { response, end } = await harness.postChat(chatBody());
    expect(response.status).toBe(200);
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
    expect(JSON.parse(response.body).choices[0].message.content).toMatch(/^debug: /);
    expect(keyIn(response.body)).toBe(false);
    expect(keyIn(end.bodies?.responseBody?.toString('latin1') ?? '')).toBe(false);
  });
});
