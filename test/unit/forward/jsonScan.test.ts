import { describe, expect, it } from 'vitest';
import { spliceChunks, type TopLevelScan } from '../../../proxy/forward/jsonScan.ts';
import { scanTopLevel } from '../../support/scanTopLevel.ts';

interface ScanCase {
  label: string;
  json: string;
  model: string | null;
  /** The model string's raw contents as they appear between its quotes. */
  rawModel?: string;
  stream?: boolean | null;
  hasStreamOptions?: boolean;
  isObject?: boolean;
}

const CASES: ScanCase[] = [
  { label: 'model and stream', json: '{"model":"gpt-4o","stream":true}', model: 'gpt-4o', rawModel: 'gpt-4o', stream: true },
  { label: 'whitespace everywhere', json: ' \n{ "stream" : false ,\n "model" :\t"m-1" }', model: 'm-1', rawModel: 'm-1', stream: false },
  { label: 'escaped quote in the model', json: '{"model":"a\\"b"}', model: 'a"b', rawModel: 'a\\"b' },
  { label: 'escaped key', json: '{"mod\\u0065l":"x"}', model: 'x', rawModel: 'x' },
  { label: 'escaped backslash before a closing quote', json: '{"input":"a\\\\","model":"m"}', model: 'm', rawModel: 'm' },
  { label: 'structure inside a string', json: '{"input":"},{\\"model\\":\\"fake\\"","model":"real"}', model: 'real', rawModel: 'real' },
  {
    label: 'nested model ignored',
    json: '{"messages":[{"model":"inner","stream":true}],"model":"outer"}',
    model: 'outer',
    rawModel: 'outer',
    stream: null,
  },
  { label: 'only a nested model', json: '{"meta":{"model":"inner","stream":true}}', model: null, stream: null },
  { label: 'multi-byte model', json: '{"model":"模型-ü"}', model: '模型-ü', rawModel: '模型-ü' },
  { label: 'last duplicate wins', json: '{"model":"a","model":"b"}', model: 'b', rawModel: 'b' },
  { label: 'stream as a string is not a flag', json: '{"stream":"true","model":"m"}', model: 'm', rawModel: 'm', stream: null },
  { label: 'stream as an object is not a flag', json: '{"stream":{"a":","},"model":"m"}', model: 'm', rawModel: 'm', stream: null },
  {
    label: 'stream_options present',
    json: '{"stream":true,"stream_options":{"include_usage":false}}',
    model: null,
    stream: true,
    hasStreamOptions: true,
  },
  { label: 'a model key too long to be one', json: `{"${'k'.repeat(100)}":"no","model":"yes"}`, model: 'yes', rawModel: 'yes' },
  { label: 'invalid escape gives no model', json: '{"model":"bad\\q"}', model: null },
  { label: 'non-string model', json: '{"model":7,"stream":true}', model: null, stream: true },
  { label: 'an array is no object', json: '[{"model":"x"}]', model: null, isObject: false },
  { label: 'bytes after the object are ignored', json: '{"stream":true} {"model":"x"}', model: null, stream: true },
  {
    label: 'long strings with escapes past their first bytes',
    json: `{"input":"${'a'.repeat(40)}\\"}{${'b'.repeat(40)}","model":"${'m'.repeat(40)}\\u0021"}`,
    model: `${'m'.repeat(40)}!`,
    rawModel: `${'m'.repeat(40)}\\u0021`,
  },
  {
    label: 'a key that only starts like a known one',
    json: '{"models":"no","streaming":true,"model":"yes"}',
    model: 'yes',
    rawModel: 'yes',
  },
];

function expectScan(scan: TopLevelScan, body: Buffer, testCase: ScanCase): void {
  expect(scan.isObject).toBe(testCase.isObject ?? true);
  expect(scan.model).toBe(testCase.model);
  expect(scan.stream).toBe(testCase.stream ?? null);
  expect(scan.hasStreamOptions).toBe(testCase.hasStreamOptions ?? false);
  if (testCase.rawModel !== undefined) expect(body.subarray(scan.modelStart, scan.modelEnd).toString('utf8')).toBe(testCase.rawModel);
}

function splitAt(body: Buffer, cut: number): Buffer[] {
  return [body.subarray(0, cut), body.subarray(cut)];
}

describe('scanTopLevel', () => {
  it.each(CASES)('$label', (testCase) => {
    const body = Buffer.from(testCase.json);
    expectScan(scanTopLevel([body]), body, testCase);
  });

  it.each(CASES)('$label, split at every byte', (testCase) => {
    const body = Buffer.from(testCase.json);
    for (let cut = 0; cut <= body.length; cut += 1) expectScan(scanTopLevel(splitAt(body, cut)), body, testCase);
  });

  it.each(CASES)('$label, one byte per chunk', (testCase) => {
    const body = Buffer.from(testCase.json);
    const chunks = Array.from({ length: body.length }, (_unused, index) => body.subarray(index, index + 1));
    expectScan(scanTopLevel(chunks), body, testCase);
  });

  it.each(CASES.filter((testCase) => testCase.model !== null && testCase.isObject !== false && !testCase.label.includes('after')))(
    'agrees with JSON.parse: $label',
    (testCase) => {
      expect(scanTopLevel([Buffer.from(testCase.json)]).model).toBe((JSON.parse(testCase.json) as { model: unknown }).model);
    },
  );

  it('finds a model after 10 MB of messages full of escapes, in 64 KiB chunks', () => {
    const content = 'say \\"hi\\" and a backslash \\\\ then {[,:]} '.repeat(250_000);
    const body = Buffer.from(`{"messages":[{"role":"user","content":"${content}"}],"stream":true,"model":"gpt-4o-mini"}`);
    expect(body.length).toBeGreaterThan(10 * 1024 * 1024);
    const chunks: Buffer[] = [];
    for (let start = 0; start < body.length; start += 64 * 1024) chunks.push(body.subarray(start, start + 64 * 1024));
    const scan = scanTopLevel(chunks);
    expect(scan.model).toBe('gpt-4o-mini');
    expect(scan.stream).toBe(true);
    expect(scan.modelStart).toBe(body.lastIndexOf('gpt-4o-mini'));
    expect(scan.modelEnd).toBe(scan.modelStart + 'gpt-4o-mini'.length);
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
