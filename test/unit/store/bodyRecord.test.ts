import { describe, expect, it } from 'vitest';
import { bodyTextsOf, buildBodiesRecord, capUtf8, decodeBody, isBinaryBodyDescription } from '../../../proxy/store/write/bodyRecord.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { capturedBodies } from '../../support/lifecycleEvents.ts';
import { maskedStoredRequest } from '../../../proxy/store/read/secretsNow.ts';
import { logDetail } from '../app/export/exportRows.ts';

describe('capUtf8', () => {
  it.each([
    ['short text stays whole', 'hello', 10, 'hello', false],
    ['exact fit is not truncated', 'hello', 5, 'hello', false],
    ['ascii is cut at the cap', 'hello world', 5, 'hello', true],
    // '€' is 3 bytes: a cap inside it drops the whole character.
    ['a multibyte character is never split', 'ab€cd', 4, 'ab', true],
    ['cut right after a multibyte character', 'ab€cd', 5, 'ab€', true],
    ['4-byte emoji is kept or dropped whole', 'x😀y', 3, 'x', true],
    ['zero cap keeps nothing', 'abc', 0, '', true],
    // Three bytes a UTF-16 unit is the most UTF-8 takes: at that bound a text fits without being measured.
    ['3-byte characters at three bytes a unit fit', '€€', 6, '€€', false],
    ['3-byte characters a byte over are cut', '€€', 5, '€', true],
    ['a 4-byte emoji takes two units, under the bound', '😀😀', 8, '😀😀', false],
    ['emoji over the cap are cut whole', '😀😀', 7, '😀', true],
    // A lone surrogate is stored as U+FFFD, 3 bytes: at its bound it fits without being measured.
    ['a lone surrogate at three bytes a unit fits', '\uD800', 3, '\uD800', false],
    ['a lone surrogate over the cap is cut', 'a\uD800', 3, 'a', true],
  ])('%s', (_name, text, capBytes, expected, truncated) => {
    expect(capUtf8(text, capBytes)).toEqual({ text: expected, truncated });
  });
});

describe('decodeBody', () => {
  it.each([
    ['JSON is text', Buffer.from('{"a":1}'), 'application/json', '{"a":1}'],
    ['no content type is decoded as text', Buffer.from('plain'), undefined, 'plain'],
    ['an image is described, not stored', Buffer.from([1, 2, 3]), 'image/png', '[binary body not logged: 3 bytes, image/png]'],
    [
      'multipart upload is described',
      Buffer.from('--b\r\n'),
      'multipart/form-data; boundary=b',
      '[binary body not logged: 5 bytes, multipart/form-data; boundary=b]',
    ],
    [
      'NUL bytes mark binary even when labelled text',
      Buffer.from([0x61, 0, 0x62]),
      'text/plain',
      '[binary body not logged: 3 bytes, text/plain]',
    ],
  ])('%s', (_name, body, contentType, expected) => {
    expect(decodeBody(body, contentType)).toBe(expected);
  });

  it('keeps a missing body missing', () => {
    expect(decodeBody(null, 'application/json')).toBeNull();
  });

  it('tells its description of a binary body from a text body (a replay must not send the description)', () => {
    const described = [
      decodeBody(Buffer.from([1, 2]), 'image/png'),
      decodeBody(Buffer.from('--b\r\n'), 'multipart/form-data; boundary=b', { declared: '52428800', truncated: true }),
      decodeBody(Buffer.from([0x61, 0]), undefined, { declared: undefined, truncated: true }),
    ];
    expect(described.map((text) => isBinaryBodyDescription(text ?? ''))).toEqual([true, true, true]);
    const text = ['{"a":1}', '[binary body not logged: 3 bytes] and then a prompt', 'plain'];
    expect(text.map(isBinaryBodyDescription)).toEqual([false, false, false]);
  });
});

const base64At = (shift: number): string => Buffer.from('x'.repeat(shift) + SENTINEL_KEY).toString('base64');

describe('buildBodiesRecord masking', () => {
  it.each([
    ['raw', SENTINEL_KEY],
    ['URL-encoded', encodeURIComponent(`key=${SENTINEL_KEY}&x=1`)],
    ['bearer', `Bearer ${SENTINEL_KEY}`],
    ['base64 aligned', base64At(0)],
    ['base64 shifted by one', base64At(1)],
    ['base64 shifted by two', base64At(2)],
  ])('masks the key in %s form in every body and header', (_form, leak) => {
    const record = buildBodiesRecord(
      capturedBodies({
        requestHeaders: { 'content-type': 'application/json', 'user-agent': `agent ${leak}`, authorization: `Bearer ${SENTINEL_KEY}` },
        responseHeaders: { 'x-request-id': leak },
        requestBody: Buffer.from(JSON.stringify({ prompt: `my key is ${leak}` })),
        responseBody: Buffer.from(`{"echo":"${leak}"}`),
        streamText: `said ${leak}`,
      }),
      false,
      1024 * 1024,
      [SENTINEL_KEY],
    );
    expect(findSentinel(JSON.stringify(record))).toBeNull();
    expect(record.requestHeaders.authorization).toBeUndefined();
    expect(record.requestBody).toContain('my key is');
  });
});

describe('buildBodiesRecord header names', () => {
  it('drops a kept header whose name holds a secret (names are lower case: a key of lower-case hex comes through whole)', () => {
    const lowerCaseKey = '5e7f3a9c2e5b8d41f6a0c3e9b7d2f5a8';
    const record = buildBodiesRecord(
      capturedBodies({
        requestHeaders: { [`x-stainless-${lowerCaseKey}`]: '1', 'x-stainless-lang': 'js' },
        responseHeaders: { [`x-ratelimit-${lowerCaseKey}`]: '10', 'x-ratelimit-remaining-requests': '9' },
      }),
      false,
      1024 * 1024,
      [lowerCaseKey],
    );
    expect(findSentinel(JSON.stringify(record), lowerCaseKey)).toBeNull();
    expect(record.requestHeaders).toEqual({ 'x-stainless-lang': 'js' });
    expect(record.responseHeaders).toEqual({ 'x-ratelimit-remaining-requests': '9' });
  });
});

describe('header names and a short gateway key (a local placeholder such as OPENAI_API_KEY=x)', () => {
  const shortKeys = ['x', 'token', 'session'];
  const headers = () => ({
    requestHeaders: { 'x-claude-code-session-id': 's-1', 'x-stainless-lang': 'js' },
    responseHeaders: { 'x-request-id': 'req-1', 'x-ratelimit-remaining-tokens': '9000' },
  });
  const namesOf = (record: { requestHeaders: object; responseHeaders: object } | null | undefined) =>
    [...Object.keys(record?.requestHeaders ?? {}), ...Object.keys(record?.responseHeaders ?? {})].sort();
  const allNames = ['x-claude-code-session-id', 'x-ratelimit-remaining-tokens', 'x-request-id', 'x-stainless-lang'];

  it('keeps the headers whose names merely hold it, when the row is written', () => {
    expect(namesOf(buildBodiesRecord(capturedBodies(headers()), false, 1024 * 1024, shortKeys))).toEqual(allNames);
  });

  it('keeps them when the row is read', () => {
    expect(namesOf(maskedStoredRequest(logDetail({}, headers()), () => shortKeys).bodies)).toEqual(allNames);
  });

  it('still masks it in header values and bodies', () => {
    const record = buildBodiesRecord(
      capturedBodies({ requestHeaders: { 'user-agent': 'token-cli/1.0' }, requestBody: Buffer.from('{"note":"token"}') }),
      false,
      1024 * 1024,
      shortKeys,
    );
    expect(record.requestBody).not.toContain('token');
    expect(record.requestHeaders['user-agent']).toMatch(/^\[redacted\]/);
  });
});

describe('buildBodiesRecord shape', () => {
  it('stores a stream response as raw events and keeps the assembled text', () => {
    const record = buildBodiesRecord(
      capturedBodies({ responseBody: Buffer.from('data: {"x":1}\n\ndata: [DONE]\n\n'), streamText: 'Hello' }),
      true,
      1024,
      [],
    );
    expect(record.responseBody).toBeNull();
    expect(record.rawEvents).toBe('data: {"x":1}\n\ndata: [DONE]\n\n');
    expect(record.streamText).toBe('Hello');
  });

  it.each([
    ['capped here', 'z'.repeat(100), false, 10, true],
    ['already capped by the pipeline', 'z'.repeat(5), true, 10, true],
    ['within the cap', 'z'.repeat(5), false, 10, false],
  ])('request body %s', (_name, body, pipelineTruncated, capBytes, truncated) => {
    const record = buildBodiesRecord(
      capturedBodies({ requestBody: Buffer.from(body), requestBodyTruncated: pipelineTruncated }),
      false,
      capBytes,
      [],
    );
    expect(record.requestTruncated).toBe(truncated);
    expect(Buffer.byteLength(record.requestBody ?? '')).toBeLessThanOrEqual(capBytes);
  });
});

describe('bodyTextsOf', () => {
  it('decodes both bodies as the record stores them, by their content types', () => {
    const texts = bodyTextsOf(
      capturedBodies({
        requestHeaders: { 'Content-Type': 'application/octet-stream' },
        requestBody: Buffer.from('{"model":"m"}'),
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: Buffer.from('{"id":"x"}'),
      }),
    );
    // A binary upload is a description (which the summary parses to nothing), never its bytes.
    expect(texts).toEqual({ request: '[binary body not logged: 13 bytes, application/octet-stream]', response: '{"id":"x"}' });
  });

  it('describes a binary body cut at the capture limit by its whole size, as the client declared it', () => {
    const texts = bodyTextsOf(
      capturedBodies({
        requestHeaders: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': '52428800' },
        requestBody: Buffer.alloc(1024, 1),
        requestBodyTruncated: true,
        responseHeaders: { 'content-type': 'audio/mpeg' },
        responseBody: Buffer.alloc(2048, 1),
        responseBodyTruncated: true,
      }),
    );
    expect(texts).toEqual({
      request: '[binary body not logged: 52428800 bytes, multipart/form-data; boundary=b]',
      // A chunked answer declares no size: what came is at least the captured part.
      response: '[binary body not logged: more than 2048 bytes, audio/mpeg]',
    });
  });

  it('gives the record what it would decode itself', () => {
    const bodies = capturedBodies({ requestBody: Buffer.from('{"a":1}'), responseBody: Buffer.from('{"b":2}') });
    expect(buildBodiesRecord(bodies, false, 1024, [SENTINEL_KEY], bodyTextsOf(bodies))).toEqual(
      buildBodiesRecord(bodies, false, 1024, [SENTINEL_KEY]),
    );
  });
});
