import { describe, expect, it } from 'vitest';
import { rewriteJsonBody, spliceChunks } from '../../../proxy/forward/bodyRewrite.ts';
import { sharedBody } from '../../../proxy/forward/sharedBody.ts';
import { parseClientBody, type ClientBody } from '../../../proxy/forward/requestBody.ts';
import { scanTopLevel } from '../../support/scanTopLevel.ts';

interface RewriteCase {
  label: string;
  json: string;
  upstreamModel: string | null;
  /** Chat Completions: a stream asks for usage. */
  wantUsage: boolean;
  /** The bytes sent upstream; undefined: the body's own chunks, untouched. */
  sent?: string;
  usageInjected?: boolean;
  usageAsked?: boolean;
}

const CASES: RewriteCase[] = [
  { label: 'nothing to change', json: '{"model":"m","messages":[]}', upstreamModel: 'm', wantUsage: true },
  { label: 'no model to set', json: '{"model":"m","stream":false}', upstreamModel: null, wantUsage: true },
  {
    label: 'an alias',
    json: '{"model":"alias","messages":[]}',
    upstreamModel: 'real',
    wantUsage: true,
    sent: '{"model":"real","messages":[]}',
  },
  {
    label: 'an alias spaced out',
    json: ' { "model" : "alias" ,\n "n": 1 }',
    upstreamModel: 'real',
    wantUsage: false,
    sent: ' { "model" :"real",\n "n": 1 }',
  },
  { label: 'a missing model', json: '{"messages":[]}', upstreamModel: 'real', wantUsage: false, sent: '{"model":"real","messages":[]}' },
  { label: 'a missing model in an empty object', json: '{}', upstreamModel: 'real', wantUsage: false, sent: '{"model":"real"}' },
  { label: 'a model that is no string', json: '{"model":7}', upstreamModel: 'real', wantUsage: false, sent: '{"model":"real"}' },
  {
    label: 'a model name escaped',
    json: '{"model":"m"}',
    upstreamModel: 'say "模型"\n',
    wantUsage: false,
    sent: '{"model":"say \\"模型\\"\\n"}',
  },
  {
    label: 'usage asked for a stream',
    json: '{"model":"m","stream":true}',
    upstreamModel: 'm',
    wantUsage: true,
    sent: '{"stream_options":{"include_usage":true},"model":"m","stream":true}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'usage merged into the client stream_options',
    json: '{"stream":true,"stream_options": {"include_obfuscation":false} }',
    upstreamModel: null,
    wantUsage: true,
    sent: '{"stream":true,"stream_options":{"include_obfuscation":false,"include_usage":true}}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'include_usage false turned on',
    json: '{"stream":true,"stream_options":{"include_usage":false},"n":1}',
    upstreamModel: null,
    wantUsage: true,
    sent: '{"stream":true,"stream_options":{"include_usage":true},"n":1}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'stream_options null replaced',
    json: '{"stream":true,"stream_options":null}',
    upstreamModel: null,
    wantUsage: true,
    sent: '{"stream":true,"stream_options":{"include_usage":true}}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'the client asked for usage itself',
    json: '{"stream":true,"stream_options":{"include_usage":true}}',
    upstreamModel: null,
    wantUsage: true,
    usageAsked: true,
  },
  { label: 'no stream, no usage asked', json: '{"model":"m","stream_options":null}', upstreamModel: 'm', wantUsage: true },
  { label: 'not chat: a stream left as it is', json: '{"model":"m","stream":true}', upstreamModel: 'm', wantUsage: false },
  {
    label: 'an alias and usage, model last',
    json: '{"stream":true,"model":"alias"}',
    upstreamModel: 'real',
    wantUsage: true,
    sent: '{"stream_options":{"include_usage":true},"stream":true,"model":"real"}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'a missing model and usage, both added',
    json: '{"stream":true}',
    upstreamModel: 'real',
    wantUsage: true,
    sent: '{"model":"real","stream_options":{"include_usage":true},"stream":true}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'a model that is an object holding brackets, quotes and backslashes',
    json: '{"model":{"a":"},\\"\\\\","b":[1]},"n":1}',
    upstreamModel: 'real',
    wantUsage: false,
    sent: '{"model":"real","n":1}',
  },
  {
    label: 'an escaped model key',
    json: '{"mod\\u0065l":"alias"}',
    upstreamModel: 'real',
    wantUsage: false,
    sent: '{"mod\\u0065l":"real"}',
  },
  {
    label: 'stream_options as an array replaced',
    json: '{"stream":true,"stream_options":[1]}',
    upstreamModel: null,
    wantUsage: true,
    sent: '{"stream":true,"stream_options":{"include_usage":true}}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'stream_options written all in escapes',
    json: '{"stream":true,"\\u0073\\u0074\\u0072\\u0065\\u0061\\u006d\\u005f\\u006f\\u0070\\u0074\\u0069\\u006f\\u006e\\u0073":{"include_usage":false}}',
    upstreamModel: null,
    wantUsage: true,
    sent: '{"stream":true,"\\u0073\\u0074\\u0072\\u0065\\u0061\\u006d\\u005f\\u006f\\u0070\\u0074\\u0069\\u006f\\u006e\\u0073":{"include_usage":true}}',
    usageInjected: true,
    usageAsked: true,
  },
  {
    label: 'not chat: a client include_usage asks nothing of a chat stream',
    json: '{"model":"m","stream":true,"stream_options":{"include_usage":true}}',
    upstreamModel: 'm',
    wantUsage: false,
  },
  {
    label: 'the rest kept as written: integers past 2^53, 1.0, escapes, key order',
    json: '{"seed":12345678901234567890,"temperature":1.0,"stop":["\\u00e9","\\/"],"model":"alias","z":1,"a":2}',
    upstreamModel: 'real',
    wantUsage: true,
    sent: '{"seed":12345678901234567890,"temperature":1.0,"stop":["\\u00e9","\\/"],"model":"real","z":1,"a":2}',
  },
];

const PARSE_ALL = { maxBytes: Number.POSITIVE_INFINITY, maxStructuralMarks: Number.POSITIVE_INFINITY, maxDepth: 64 };
const SCAN_ONLY = { ...PARSE_ALL, maxBytes: 0 };

function bodyOf(chunks: Buffer[]): ClientBody {
  return { chunks, byteLength: chunks.reduce((sum, chunk) => sum + chunk.length, 0), scan: scanTopLevel(chunks) };
}

/** The body as every two-chunk split of its bytes, as a socket may deliver it. */
function splits(json: string): Buffer[][] {
  const bytes = Buffer.from(json);
  return Array.from({ length: bytes.length + 1 }, (_unused, cut) => [bytes.subarray(0, cut), bytes.subarray(cut)]);
}

function rewrite(chunks: Buffer[], limits: typeof PARSE_ALL, testCase: RewriteCase) {
  const body = bodyOf(chunks);
  const parsed = parseClientBody(body, 'application/json', limits);
  expect(parsed.kind).toBe(limits === PARSE_ALL ? 'json' : 'scanned-json');
  return { body, rewritten: rewriteJsonBody(body, parsed, testCase.upstreamModel, testCase.wantUsage) };
}

/** The sent bytes as one buffer, and the client's as views of it but for what an edit replaced (sharedBody.ts). */
function expectOneCopy(client: Buffer[], rewritten: ReturnType<typeof rewriteJsonBody>): void {
  const shared = sharedBody(client, rewritten.chunks, rewritten.byteLength, rewritten.edits);
  if (shared === null) {
    expect(rewritten.chunks.length).toBeLessThan(2);
    return;
  }
  expect(shared.sent.equals(Buffer.concat(rewritten.chunks))).toBe(true);
  expect(Buffer.concat(shared.client).equals(Buffer.concat(client))).toBe(true);
  const ownBytes = shared.client.filter((view) => view.buffer !== shared.sent.buffer).reduce((sum, view) => sum + view.length, 0);
  expect(ownBytes).toBe(rewritten.edits.reduce((sum, edit) => sum + edit.end - edit.start, 0));
}

describe('rewriteJsonBody', () => {
  it.each(CASES)('$label, parsed and scanned alike, split anywhere', (testCase) => {
    for (const limits of [PARSE_ALL, SCAN_ONLY]) {
      for (const chunks of splits(testCase.json)) {
        const { body, rewritten } = rewrite(chunks, limits, testCase);
        const sent = Buffer.concat(rewritten.chunks).toString('utf8');
        expect(sent).toBe(testCase.sent ?? testCase.json);
        expectOneCopy(body.chunks, rewritten);
        expect(rewritten.byteLength).toBe(Buffer.byteLength(sent));
        if (testCase.sent === undefined) expect(rewritten.chunks).toBe(body.chunks);
        expect(rewritten.usageInjected).toBe(testCase.usageInjected ?? false);
        expect(rewritten.usageAsked).toBe(testCase.usageAsked ?? false);
      }
    }
  });

  it.each(CASES)('$label: the gateway reads what a re-serialised body would say', (testCase) => {
    const { rewritten } = rewrite([Buffer.from(testCase.json)], PARSE_ALL, testCase);
    const value = JSON.parse(testCase.json) as Record<string, unknown>;
    const expected: Record<string, unknown> = { ...value };
    if (testCase.upstreamModel !== null) expected.model = testCase.upstreamModel;
    if (testCase.usageInjected) {
      const options = value.stream_options;
      const kept = typeof options === 'object' && options !== null && !Array.isArray(options) ? options : {};
      expected.stream_options = { ...kept, include_usage: true };
    }
    expect(JSON.parse(Buffer.concat(rewritten.chunks).toString('utf8'))).toEqual(expected);
  });

  // A model the gateway refused max_tokens for (maxTokensRefusals.ts): the key alone is renamed, beside the other edits.
  it.each([
    [
      'with the model and usage edits',
      '{"model":"alias", "max_tokens" :32000,"stream":true,"messages":[]}',
      '{"stream_options":{"include_usage":true},"model":"real", "max_completion_tokens":32000,"stream":true,"messages":[]}',
    ],
    ['alone', '{"model":"real","messages":[],"max_tokens":5}', '{"model":"real","messages":[],"max_completion_tokens":5}'],
    ['not with max_completion_tokens too', '{"model":"real","max_tokens":5,"max_completion_tokens":6}', null],
    ['not with max_completion_tokens too, even as null', '{"model":"real","max_completion_tokens":null,"max_tokens":5}', null],
    ['not without max_tokens', '{"model":"real","messages":[{"max_tokens":5}]}', null],
  ])('renames max_tokens %s, parsed and scanned alike, split anywhere', (_label, json, sent) => {
    for (const limits of [PARSE_ALL, SCAN_ONLY]) {
      for (const chunks of splits(json)) {
        const body = bodyOf(chunks);
        const rewritten = rewriteJsonBody(body, parseClientBody(body, 'application/json', limits), 'real', true, true);
        expect(Buffer.concat(rewritten.chunks).toString('utf8')).toBe(sent ?? json);
        expect(rewritten.byteLength).toBe(Buffer.byteLength(sent ?? json));
        expect(rewritten.maxTokensRenamed).toBe(sent === null ? undefined : true);
        expectOneCopy(body.chunks, rewritten);
      }
    }
  });

  it('leaves max_tokens alone unless asked', () => {
    const body = bodyOf([Buffer.from('{"model":"real","max_tokens":5}')]);
    const rewritten = rewriteJsonBody(body, parseClientBody(body, 'application/json', PARSE_ALL), 'real', true);
    expect(rewritten.chunks).toBe(body.chunks);
    expect(rewritten).not.toHaveProperty('maxTokensRenamed');
  });

  it('leaves a scanned stream_options it cannot read as it is, without asking for usage', () => {
    const unreadable = ['{"stream":true,"stream_options":{bad}}', `{"stream":true,"stream_options":{"pad":"${'x'.repeat(5000)}"}}`];
    for (const json of unreadable) {
      const body = bodyOf([Buffer.from(json)]);
      const rewritten = rewriteJsonBody(body, parseClientBody(body, 'application/json', SCAN_ONLY), null, true);
      expect(rewritten).toEqual({ chunks: body.chunks, byteLength: body.byteLength, usageInjected: false, usageAsked: false, edits: [] });
    }
  });

  it('leaves a scanned body cut short as it came', () => {
    const body = bodyOf([Buffer.from('{"messages":[1],"model":"alias","stream":true')]);
    const rewritten = rewriteJsonBody(body, parseClientBody(body, 'application/json', SCAN_ONLY), 'real', true);
    expect(rewritten).toEqual({ chunks: body.chunks, byteLength: body.byteLength, usageInjected: false, usageAsked: false, edits: [] });
  });

  it('changes nothing in a body that is not a JSON object', () => {
    for (const [text, contentType] of [
      ['', 'application/json'],
      ['plain text', 'text/plain'],
      ['[1]', 'application/json'],
    ] as const) {
      const chunks = [Buffer.from(text)];
      const body = { chunks, byteLength: chunks[0]!.length, scan: contentType === 'text/plain' ? null : scanTopLevel(chunks) };
      const rewritten = rewriteJsonBody(body, parseClientBody(body, contentType, PARSE_ALL), 'real', true);
      expect(rewritten.chunks).toBe(chunks);
      expect(rewritten.usageInjected).toBe(false);
    }
  });
});

describe('spliceChunks', () => {
  const chunks = ['abc', 'def', 'ghi'].map((text) => Buffer.from(text));

  it.each<[string, number, number, string, string]>([
    ['inside one chunk', 4, 5, 'X', 'abcdXfghi'],
    ['across chunks', 2, 7, '-', 'ab-hi'],
    ['insert at a chunk boundary', 3, 3, '+', 'abc+defghi'],
    ['insert at the start', 0, 0, '{', '{abcdefghi'],
    ['insert at the end', 9, 9, '}', 'abcdefghi}'],
    ['replace everything', 0, 9, 'new', 'new'],
    ['remove a whole chunk', 3, 6, '', 'abcghi'],
  ])('%s', (_label, start, end, replacement, expected) => {
    expect(Buffer.concat(spliceChunks(chunks, start, end, Buffer.from(replacement))).toString()).toBe(expected);
  });

  it('keeps untouched chunks by reference', () => {
    const out = spliceChunks(chunks, 4, 5, Buffer.from('X'));
    expect(out[0]).toBe(chunks[0]);
    expect(out.at(-1)).toBe(chunks[2]);
  });
});
