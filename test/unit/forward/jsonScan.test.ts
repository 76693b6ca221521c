import { describe, expect, it } from 'vitest';
import type { ByteRange, TopLevelScan } from '../../../proxy/forward/jsonScan.ts';
import { scanTopLevel } from '../../support/scanTopLevel.ts';

interface ScanCase {
  label: string;
  json: string;
  model: string | null;
  /** The model string's raw contents as they appear between its quotes. */
  rawModel?: string;
  /** The last model value as written, when it is no string. */
  rawModelValue?: string;
  stream?: boolean | null;
  /** The last stream_options value as written (whitespace trimmed). */
  rawStreamOptions?: string;
  isObject?: boolean;
  /** Whether the object's closing brace comes; true unless said. */
  closed?: boolean;
  /** The top-level max_tokens key as written, up to its colon (whitespace trimmed). */
  rawMaxTokensKey?: string;
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
    rawStreamOptions: '{"include_usage":false}',
  },
  {
    label: 'stream_options spaced out, then a later member',
    json: '{"stream_options" :  { "include_usage" : true, "x": [1, {"y": "}"}] }\n, "model":"m"}',
    model: 'm',
    rawModel: 'm',
    rawStreamOptions: '{ "include_usage" : true, "x": [1, {"y": "}"}] }',
  },
  {
    label: 'stream_options as null, last member',
    json: '{"stream":true,"stream_options":null}',
    model: null,
    stream: true,
    rawStreamOptions: 'null',
  },
  {
    label: 'stream_options written all in escapes',
    json: '{"stream":true,"\\u0073\\u0074\\u0072\\u0065\\u0061\\u006d\\u005f\\u006f\\u0070\\u0074\\u0069\\u006f\\u006e\\u0073":{"include_usage":false}}',
    model: null,
    stream: true,
    rawStreamOptions: '{"include_usage":false}',
  },
  { label: 'a body cut short', json: '{"model":"m","stream":true', model: 'm', rawModel: 'm', stream: null, closed: false },
  { label: 'nested stream_options ignored', json: '{"meta":{"stream_options":{}}}', model: null },
  { label: 'a later non-string model replaces a string one', json: '{"model":"a","model":[1]}', model: null, rawModelValue: '[1]' },
  { label: 'a model key too long to be one', json: `{"${'k'.repeat(100)}":"no","model":"yes"}`, model: 'yes', rawModel: 'yes' },
  { label: 'invalid escape gives no model', json: '{"model":"bad\\q"}', model: null, rawModelValue: '"bad\\q"' },
  { label: 'non-string model', json: '{"model":7,"stream":true}', model: null, rawModelValue: '7', stream: true },
  { label: 'an array is no object', json: '[{"model":"x"}]', model: null, isObject: false, closed: false },
  { label: 'bytes after the object are ignored', json: '{"stream":true} {"model":"x"}', model: null, stream: true },
  {
    label: 'long strings with escapes past their first bytes',
    json: `{"input":"${'a'.repeat(40)}\\"}{${'b'.repeat(40)}","model":"${'m'.repeat(40)}\\u0021"}`,
    model: `${'m'.repeat(40)}!`,
    rawModel: `${'m'.repeat(40)}\\u0021`,
  },
  { label: 'max_tokens located', json: '{"model":"m", "max_tokens" : 5}', model: 'm', rawModel: 'm', rawMaxTokensKey: '"max_tokens"' },
  { label: 'max_tokens written in escapes', json: '{"max\\u005ftokens":5}', model: null, rawMaxTokensKey: '"max\\u005ftokens"' },
  { label: 'a nested max_tokens ignored', json: '{"metadata":{"max_tokens":5},"model":"m"}', model: 'm', rawModel: 'm' },
  { label: 'max_tokens as a value is no key', json: '{"note":"max_tokens","model":"m"}', model: 'm', rawModel: 'm' },
  { label: 'a key that only starts as max_tokens', json: '{"max_tokens_x":5,"model":"m"}', model: 'm', rawModel: 'm' },
  {
    label: 'a key that only starts like a known one',
    json: '{"models":"no","streaming":true,"model":"yes"}',
    model: 'yes',
    rawModel: 'yes',
  },
];

const textIn = (body: Buffer, range: ByteRange | null): string | null =>
  range === null ? null : body.subarray(range.start, range.end).toString('utf8').trim();

function expectScan(scan: TopLevelScan, body: Buffer, testCase: ScanCase): void {
  expect(scan.isObject).toBe(testCase.isObject ?? true);
  expect(scan.model).toBe(testCase.model);
  expect(scan.stream).toBe(testCase.stream ?? null);
  const rawModelValue = testCase.rawModel === undefined ? testCase.rawModelValue : `"${testCase.rawModel}"`;
  expect(textIn(body, scan.modelValue)).toBe(rawModelValue ?? null);
  expect(textIn(body, scan.streamOptionsValue)).toBe(testCase.rawStreamOptions ?? null);
  expect(scan.closed).toBe(testCase.closed ?? true);
  expect(textIn(body, scan.maxTokensKey)).toBe(testCase.rawMaxTokensKey ?? null);
  if (scan.isObject) {
    expect(body[scan.objectStart]).toBe(0x7b);
    expect(body.subarray(0, scan.objectStart).toString('utf8').trim()).toBe('');
  }
}

function splitAt(body: Buffer, cut: number): Buffer[] {
  return [body.subarray(0, cut), body.subarray(cut)];
}

describe('scanTopLevel', () => {
  it.each([
    ['{}', false],
    [' {\n} ', false],
    ['{"a":1}', true],
    ['{"messages":[]}', true],
  ])('%s has members: %s', (json, hasMembers) => {
    expect(scanTopLevel([Buffer.from(json)]).hasMembers).toBe(hasMembers);
  });

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

  it.each(
    CASES.filter(
      (testCase) =>
        testCase.model !== null && testCase.closed !== false && testCase.isObject !== false && !testCase.label.includes('after'),
    ),
  )('agrees with JSON.parse: $label', (testCase) => {
    expect(scanTopLevel([Buffer.from(testCase.json)]).model).toBe((JSON.parse(testCase.json) as { model: unknown }).model);
  });

  it.each([
    { json: '{"model":"a","model":"b"}', repeated: 'model' },
    { json: '{"model":"a","messages":[],"model":"a"}', repeated: 'model' },
    { json: '{"mod\\u0065l":"a","model":"a"}', repeated: 'model' },
    { json: '{"stream":true,"model":"m","stream":false,"model":"n"}', repeated: 'stream' },
    { json: '{"stream_options":{},"stream_options":null}', repeated: 'stream_options' },
    { json: '{"n":1,"max_tokens":2,"n":1}', repeated: 'n' },
    { json: '{"max_output_tokens":1,"max_output_tokens":1}', repeated: 'max_output_tokens' },
    { json: '{"model":"m","stream":true,"max_tokens":1,"max_completion_tokens":2,"n":1,"stream_options":{}}', repeated: null },
    // Only the members Airlock reads, and only at the top level.
    { json: '{"temperature":1,"temperature":2,"model":"m"}', repeated: null },
    { json: '{"messages":[{"model":"a"},{"model":"b"}],"metadata":{"n":1,"n":2},"model":"m"}', repeated: null },
    { json: '{"input":"\\"model\\":\\"x\\"","model":"m"}', repeated: null },
  ])('names a member it reads that the top level repeats, in any pieces: $json', ({ json, repeated }) => {
    const body = Buffer.from(json);
    for (let cut = 0; cut <= body.length; cut += 1) expect(scanTopLevel(splitAt(body, cut)).repeatedMember).toBe(repeated);
  });

  // Go's encoding/json matches keys to struct fields without case (golang/go#14750), folding as bytes.EqualFold does.
  it.each([
    { json: '{"model":"a","MODEL":"b"}', written: 'MODEL', member: 'model' },
    { json: '{"Model":"b","messages":[]}', written: 'Model', member: 'model' },
    { json: '{"model":"m","Max_Tokens":9000}', written: 'Max_Tokens', member: 'max_tokens' },
    { json: '{"model":"m","N":4}', written: 'N', member: 'n' },
    { json: '{"model":"m","STREAM_OPTIONS":{}}', written: 'STREAM_OPTIONS', member: 'stream_options' },
    // The Kelvin sign folds to k and the long s to s, raw or escaped.
    { json: '{"model":"m","max_to\u212Aens":9}', written: 'max_to\u212Aens', member: 'max_tokens' },
    { json: '{"model":"m","max_to\\u212Aens":9}', written: 'max_to\u212Aens', member: 'max_tokens' },
    { json: '{"model":"m","\u017Ftream":true}', written: '\u017Ftream', member: 'stream' },
    { json: '{"\\u004dodel":"m"}', written: 'Model', member: 'model' },
    { json: '{"model":"m","Stream":true,"MODEL":"x"}', written: 'Stream', member: 'stream' },
    // Other keys in upper case, members in another case only where nested, or keys that only look alike.
    { json: '{"model":"m","Temperature":1,"messages":[{"Model":"x"}],"metadata":{"N":1}}', written: null, member: null },
    { json: '{"model":"m","models":["A"],"nn":1,"Modell":1,"m\u00F6del":1,"MODEL_":1}', written: null, member: null },
    { json: '{"model":"m","input":"\\"MODEL\\":\\"x\\""}', written: null, member: null },
  ])('names a top-level key that spells a member it reads in another case, in any pieces: $json', ({ json, written, member }) => {
    const body = Buffer.from(json);
    const expected = written === null ? null : { written, member };
    for (let cut = 0; cut <= body.length; cut += 1) expect(scanTopLevel(splitAt(body, cut)).memberInAnotherCase).toEqual(expected);
  });

  it.each([
    { json: '{"model":"m","max_tokens":32000,"stream":true}', numbers: { max_tokens: 32000 } },
    { json: '{ "max_output_tokens" : 1e3 ,"n":2}', numbers: { max_output_tokens: 1000, n: 2 } },
    { json: '{"max_completion_tokens":10,"max_tokens":20}', numbers: { max_completion_tokens: 10, max_tokens: 20 } },
    { json: '{"max_tokens":5,"max_tokens":7}', numbers: { max_tokens: 7 } },
    { json: '{"max_tokens":5,"max_tokens":"7"}', numbers: {} },
    { json: '{"max_tokens":null}', numbers: {} },
    { json: '{"messages":[{"max_tokens":9}],"metadata":{"n":3}}', numbers: {} },
    { json: '{"temperature":0.5,"max_tokens":64}', numbers: { max_tokens: 64 } },
  ])('reads the top-level numbers a budget holds, in any pieces: $json', ({ json, numbers }) => {
    const body = Buffer.from(json);
    // The same as JSON.parse's top-level numbers of those names.
    for (let cut = 0; cut <= body.length; cut += 1) expect(scanTopLevel(splitAt(body, cut)).numbers).toEqual(numbers);
  });

  it('locates a value from just after its colon to the comma or brace that ends it', () => {
    const body = Buffer.from('{"model" :  "m" ,"stream_options":\t{"a":[1,"},"]}\n}');
    const scan = scanTopLevel([body]);
    expect(body.subarray(scan.modelValue!.start, scan.modelValue!.end).toString()).toBe('  "m" ');
    expect(body.subarray(scan.streamOptionsValue!.start, scan.streamOptionsValue!.end).toString()).toBe('\t{"a":[1,"},"]}\n');
  });

  it('finds a model after 10 MB of messages full of escapes, in 64 KiB chunks', () => {
    const content = 'say \\"hi\\" and a backslash \\\\ then {[,:]} '.repeat(250_000);
    const body = Buffer.from(`{"messages":[{"role":"user","content":"${content}"}],"stream":true,"model":"gpt-4o-mini"}`);
    expect(body.length).toBeGreaterThan(10 * 1024 * 1024);
    const chunks: Buffer[] = [];
    for (let start = 0; start < body.length; start += 64 * 1024) chunks.push(body.subarray(start, start + 64 * 1024));
    const scan = scanTopLevel(chunks);
    expect(scan.model).toBe('gpt-4o-mini');
    expect(scan.stream).toBe(true);
    expect(textIn(body, scan.modelValue)).toBe('"gpt-4o-mini"');
    expect(scan.modelValue?.start).toBe(body.lastIndexOf('"gpt-4o-mini"'));
  });
});
