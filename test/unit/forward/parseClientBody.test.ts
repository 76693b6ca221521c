import { describe, expect, it } from 'vitest';
import { scanTopLevel } from '../../support/scanTopLevel.ts';
import { parseClientBody, upstreamContentType, type ClientBody } from '../../../proxy/forward/requestBody.ts';
import { MAX_JSON_NESTING_DEPTH, PARSE_ON_LOOP_MAX_BYTES, PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../../../proxy/contracts/defaults.ts';

const LIMITS = {
  maxBytes: PARSE_ON_LOOP_MAX_BYTES,
  maxStructuralMarks: PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS,
  maxDepth: MAX_JSON_NESTING_DEPTH,
};

const nestedArrays = (levels: number): string => `{"x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
const manyKeys = (count: number): string => `{${Array.from({ length: count }, (_unused, index) => `"k${index}":1`).join(',')}}`;

function chunksOf(body: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < body.length; start += size) chunks.push(body.subarray(start, start + size));
  return chunks;
}

function bodyOf(json: string, chunkBytes = 64 * 1024): ClientBody {
  const bytes = Buffer.from(json);
  const chunks = chunksOf(bytes, chunkBytes);
  return { chunks, byteLength: bytes.length, scan: scanTopLevel(chunks, MAX_JSON_NESTING_DEPTH) };
}

describe('parseClientBody parses on the forwarding loop only what is cheap to parse', () => {
  it('parses a light body', () => {
    expect(parseClientBody(bodyOf('{"model":"m","messages":[]}'), 'application/json', LIMITS)).toEqual({
      kind: 'json',
      value: { model: 'm', messages: [] },
    });
  });

  it('leaves a body with more keys and values than the limit unparsed, with its scan', () => {
    const parsed = parseClientBody(bodyOf(manyKeys(PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS)), 'application/json', LIMITS);
    expect(parsed.kind).toBe('scanned-json');
  });

  it('leaves a body larger than the limit unparsed, however simple', () => {
    const parsed = parseClientBody(bodyOf(`{"model":"m","input":"${'a'.repeat(PARSE_ON_LOOP_MAX_BYTES)}"}`), 'application/json', LIMITS);
    expect(parsed).toMatchObject({ kind: 'scanned-json', scan: { model: 'm' } });
  });

  it('refuses nesting past the limit without parsing, naming the limit', () => {
    const parsed = parseClientBody(bodyOf(nestedArrays(2_000_000)), 'application/json', LIMITS);
    expect(parsed).toEqual({ kind: 'invalid', message: expect.stringContaining(`more than ${MAX_JSON_NESTING_DEPTH} levels deep`) });
  });

  it.each([
    ['parsed', '{"model":"a","messages":[],"model":"b"}'],
    ['too large to parse', `{"model":"a","input":"${'a'.repeat(PARSE_ON_LOOP_MAX_BYTES)}","model":"a"}`],
  ])('refuses a body %s that names a member Airlock reads twice', (_case, json) => {
    expect(parseClientBody(bodyOf(json), 'application/json', LIMITS)).toEqual({
      kind: 'invalid',
      message: expect.stringMatching(/^the request body names its top-level "model" more than once; .* Send each top-level member once$/),
    });
  });

  it.each([
    ['parsed', '{"model":"a","messages":[],"MODEL":"b"}'],
    ['too large to parse', `{"input":"${'a'.repeat(PARSE_ON_LOOP_MAX_BYTES)}","MODEL":"a"}`],
  ])('refuses a body %s that names a member Airlock reads in another letter case', (_case, json) => {
    expect(parseClientBody(bodyOf(json), 'application/json', LIMITS)).toEqual({
      kind: 'invalid',
      message: expect.stringMatching(
        /^the request body's top-level "MODEL" differs from "model" only in letter case; .* Write it "model"$/,
      ),
    });
  });

  it('refuses a JSON body that is not an object without parsing it', () => {
    expect(parseClientBody(bodyOf(`[${'['.repeat(1_000_000)}`), 'application/json', LIMITS)).toEqual({
      kind: 'invalid',
      message: 'the request body must be a JSON object',
    });
  });

  it('forwards a body without a content type that does not start as an object as it is', () => {
    expect(parseClientBody(bodyOf('[1,2]'), undefined, LIMITS)).toEqual({ kind: 'opaque' });
  });

  it.each(['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded'])(
    'reads a JSON object declared as %s as JSON, and sends it as application/json',
    (contentType) => {
      const parsed = parseClientBody(bodyOf('{"model":"m"}'), contentType, LIMITS);
      expect(parsed).toEqual({ kind: 'json', value: { model: 'm' } });
      expect(upstreamContentType(parsed, contentType)).toBe('application/json');
    },
  );

  it('keeps the content type of a body declared as JSON, and of one not read as JSON', () => {
    expect(upstreamContentType(parseClientBody(bodyOf('{"model":"m"}'), 'application/json', LIMITS), 'application/json')).toBeNull();
    const formFields = parseClientBody(bodyOf('model=m'), 'application/x-www-form-urlencoded', LIMITS);
    expect(formFields).toEqual({ kind: 'opaque' });
    expect(upstreamContentType(formFields, 'application/x-www-form-urlencoded')).toBeNull();
  });

  it('says why a light body is not JSON', () => {
    expect(parseClientBody(bodyOf('{"model":'), 'application/json', LIMITS)).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('not valid JSON'),
    });
  });

  it('treats a body of another content type as opaque', () => {
    expect(parseClientBody({ chunks: [Buffer.from('--x')], byteLength: 3, scan: null }, 'multipart/form-data; boundary=x', LIMITS)).toEqual(
      { kind: 'opaque' },
    );
  });
});
