import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { shellQuote } from '../../../renderer/src/common/shell.ts';
import { readBodyTree } from '../../../renderer/src/detail/bodyTree.ts';
import { buildCurl, buildSupportInfo, readableErrorMessage } from '../../../renderer/src/detail/copyText.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

describe('shellQuote', () => {
  it.each([["it's"], ['a "b" $HOME `id`'], ['line\nbreak'], ['']])('round-trips %j through sh', (text) => {
    expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(text)}`], { encoding: 'utf8' })).toBe(text);
  });
});

describe('buildCurl', () => {
  const base = {
    proxyUrl: 'http://127.0.0.1:8642',
    method: 'POST',
    clientPath: '/v1/chat/completions',
    stream: true,
    body: '{"model":"m"}',
    bodyTruncated: false,
  };

  it.each([
    ['a stream gets -N', base, ["curl -N 'http://127.0.0.1:8642/v1/chat/completions'", `--data-raw '{"model":"m"}'`]],
    [
      'a GET has no body',
      { ...base, method: 'GET', clientPath: '/v1/models', stream: false, body: null },
      ["curl 'http://127.0.0.1:8642/v1/models'"],
    ],
    ['a DELETE names its method', { ...base, method: 'DELETE', stream: false, body: null }, ['curl -X DELETE']],
    ['a truncated body is flagged', { ...base, bodyTruncated: true }, ['# The logged body was truncated']],
  ])('%s', (_name, input, fragments) => {
    const curl = buildCurl(input);
    for (const fragment of fragments) expect(curl).toContain(fragment);
    expect(curl).toContain('Authorization: Bearer $AIRLOCK_TOKEN');
  });
});

describe('buildSupportInfo', () => {
  const detail = {
    id: 'req_1',
    startedAtMs: Date.UTC(2026, 0, 2, 3, 4, 5),
    upstreamModel: 'qwen-plus',
    requestedModel: 'claude-3-haiku',
    responseModel: 'qwen-plus-2025',
    status: 502,
    upstreamRequestId: 'gw-abc',
    method: 'POST',
    upstreamPath: '/v1/chat/completions',
    stream: true,
    errorClass: 'upstream_error',
    errorMessage: 'upstream failed (key sk-…1234 masked)',
  } as RequestDetail;

  it('has the five things support asks for, and nothing secret', () => {
    const text = buildSupportInfo(detail);
    expect(text).toContain('Time (UTC): 2026-01-02T03:04:05.000Z');
    expect(text).toContain('Model id: qwen-plus (response named qwen-plus-2025)');
    expect(text).toContain('Status: 502');
    expect(text).toContain('Request ID: gw-abc');
    expect(text).toContain('Error: upstream_error: upstream failed');
    expect(text).not.toContain(SENTINEL_KEY);
  });

  it('says when the gateway gave no request id', () => {
    expect(buildSupportInfo({ ...detail, upstreamRequestId: null })).toContain('Request ID: not returned by the gateway');
  });
});

describe('readBodyTree', () => {
  it.each([
    ['{"a":1}', { a: 1 }, '{\n  "a": 1\n}', false],
    ['"a string"', null, '"a string"', false],
    ['not json', null, 'not json', true],
    ['{"model":"m",, }', null, '{"model":"m",, }', true],
  ])('%s', (text, json, pretty, notJson) => {
    expect(readBodyTree(text)).toEqual({ json, pretty, notJson });
  });
});

describe('readableErrorMessage', () => {
  it.each([
    ['{"error":{"message":"model missing","type":"model_not_found"}}', 'model missing'],
    ['{"type":"error","error":{"type":"overloaded_error","message":"busy"}}', 'busy'],
    ['{"error":"plain"}', '{"error":"plain"}'],
    ['upstream closed the stream', 'upstream closed the stream'],
  ])('%s', (text, expected) => {
    expect(readableErrorMessage(text)).toBe(expected);
  });
});
