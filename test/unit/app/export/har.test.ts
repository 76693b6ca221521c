import { describe, expect, it } from 'vitest';
import type { StoredRequest } from '../../../../proxy/contracts/log.ts';
import { harEntryOf, harLogOf, type HarEntry } from '../../../../proxy/app/export/har.ts';
import { REDACTED } from '../../../../proxy/core/redact.ts';
import { harSchema } from '../../../support/harSchema.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { logDetail } from './exportRows.ts';

const OPTIONS = { proxyUrl: 'http://127.0.0.1:8642', knownSecrets: [SENTINEL_KEY] };

function entryOf(detail: StoredRequest): HarEntry {
  const entry = harEntryOf(detail, OPTIONS);
  // Every entry must make a valid HAR 1.2 document on its own.
  expect(harSchema.safeParse(harLogOf([entry], '0.1.0')).error?.issues ?? []).toEqual([]);
  return entry;
}

describe('harEntryOf: each kind of logged request is a valid HAR 1.2 entry', () => {
  it.each<[string, StoredRequest, (entry: HarEntry) => void]>([
    [
      'a non-streamed chat: request and response bodies, url on the proxy, timings from ttfb and duration',
      logDetail(),
      (entry) => {
        expect(entry.request.url).toBe('http://127.0.0.1:8642/v1/chat/completions');
        expect(entry.request.postData?.text).toContain('"content":"hi"');
        expect(entry.request.bodySize).toBe(Buffer.byteLength(entry.request.postData?.text ?? ''));
        expect(entry.response).toMatchObject({ status: 200, content: { mimeType: 'application/json' } });
        expect(entry.response.content.text).toContain('hello');
        expect(entry.timings).toEqual({ send: 0, wait: 120, receive: 330 });
        expect(entry.time).toBe(450);
        expect(entry.startedDateTime).toBe('2026-11-20T09:30:00.000Z');
        expect(entry._airlock).toMatchObject({ id: 'alk_1700000000000_a', costCredits: 0.0042, clientName: 'claude-code' });
      },
    ],
    [
      'a stream: the raw events as the response content, as text/event-stream',
      logDetail({ stream: true }, { responseBody: null, rawEvents: 'data: {"choices":[]}\n\ndata: [DONE]\n\n', streamText: 'hello' }),
      (entry) => {
        expect(entry.response.content).toMatchObject({ mimeType: 'text/event-stream', text: 'data: {"choices":[]}\n\ndata: [DONE]\n\n' });
      },
    ],
    [
      'bodies removed by retention: no postData, empty content that says why',
      logDetail({}, null),
      (entry) => {
        expect(entry.request.postData).toBeUndefined();
        expect(entry.request.bodySize).toBe(0);
        expect(entry.response.content).toEqual({
          size: 0,
          mimeType: 'application/json',
          comment: 'body not logged or removed by retention',
        });
      },
    ],
    [
      'a truncated body says it was cut',
      logDetail({}, { requestTruncated: true, responseTruncated: true }),
      (entry) => {
        expect(entry.request.postData?.comment).toMatch(/cut at the log's body cap/);
        expect(entry.response.content.comment).toMatch(/cut at the log's body cap/);
      },
    ],
    [
      'a request refused before any answer: status 0, all time counted as waiting',
      logDetail({ status: null, ttfbMs: null, durationMs: 30, errorClass: 'timeout_connect', state: 'done' }),
      (entry) => {
        expect(entry.response.status).toBe(0);
        expect(entry.timings).toEqual({ send: 0, wait: 30, receive: 0 });
        expect(entry._airlock.errorClass).toBe('timeout_connect');
      },
    ],
    [
      'an interrupted request with no duration: zero timings and a comment',
      logDetail({ status: null, ttfbMs: null, durationMs: null, state: 'interrupted' }),
      (entry) => {
        expect(entry.time).toBe(0);
        expect(entry.comment).toMatch(/stopped before the request ended/);
      },
    ],
    [
      'a path that looks like another host stays a path on the proxy',
      logDetail({ clientPath: '//gateway.example/v1/chat/completions' }),
      (entry) => {
        expect(entry.request.url).toBe('http://127.0.0.1:8642//gateway.example/v1/chat/completions');
      },
    ],
    [
      'a query string is split into queryString',
      logDetail({ method: 'GET', clientPath: '/v1/models?limit=5&after=x' }, { requestBody: null }),
      (entry) => {
        expect(entry.request.queryString).toEqual([
          { name: 'limit', value: '5' },
          { name: 'after', value: 'x' },
        ]);
      },
    ],
  ])('%s', (_name, detail, check) => {
    check(entryOf(detail));
  });
});

describe('harEntryOf: the way a request took, in _airlock', () => {
  const chain = [
    { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' as const },
    { profileId: 'backup', model: 'qwen-plus', status: 200, errorClass: null },
  ];
  const keys = [
    { keyId: 'main', label: 'key 1' },
    { keyId: '8a8651', label: 'team B' },
  ];
  it.each<[string, Parameters<typeof logDetail>[0], Partial<HarEntry['_airlock']>]>([
    [
      'an ordinary request: no chain, no pool keys, no replay, no session, each said as null',
      {},
      { fallbackChain: null, gatewayKeys: null, replayOf: null, agentSessionId: null },
    ],
    ['a request that fell back: every step in order', { fallbackChain: chain }, { fallbackChain: chain }],
    ["a pooled profile's keys per attempt, by id and label", { gatewayKeys: keys }, { gatewayKeys: keys }],
    ['a replay names its original', { replayOf: 'alk_1699999999999_z' }, { replayOf: 'alk_1699999999999_z' }],
    ["an agent's turn names its session", { agentSessionId: 'claude-session-1' }, { agentSessionId: 'claude-session-1' }],
    [
      "the gateway's own statement of its charge, in its own unit beside Airlock's cost",
      { gatewayCost: 0.000348 },
      { gatewayCostGatewayUnit: 0.000348, costCredits: 0.0042 },
    ],
    ['a gateway that stated no charge: said as null', {}, { gatewayCostGatewayUnit: null }],
    [
      'a key in a step or a label is masked',
      {
        fallbackChain: [{ profileId: 'b', model: SENTINEL_KEY, status: null, errorClass: null, note: `saw ${SENTINEL_KEY}` }],
        gatewayKeys: [{ keyId: 'k1', label: `label ${SENTINEL_KEY}` }],
      },
      {
        fallbackChain: [{ profileId: 'b', model: REDACTED, status: null, errorClass: null, note: `saw ${REDACTED}` }],
        gatewayKeys: [{ keyId: 'k1', label: `label ${REDACTED}` }],
      },
    ],
  ])('%s', (_name, row, expected) => {
    const entry = entryOf(logDetail(row));
    expect(entry._airlock).toMatchObject(expected);
    expect(findSentinel(JSON.stringify(entry))).toBeNull();
  });
});

describe('harEntryOf never exports a credential', () => {
  const leaky = logDetail(
    { errorMessage: `upstream said the key ${SENTINEL_KEY} is invalid` },
    {
      requestHeaders: {
        Authorization: `Bearer ${SENTINEL_KEY}`,
        'x-api-key': SENTINEL_KEY,
        'Proxy-Authorization': 'Basic abc',
        Cookie: 'session=1',
        'content-type': 'application/json',
        'x-custom': `echo ${SENTINEL_KEY}`,
      },
      responseHeaders: { 'set-cookie': 'a=b', 'content-type': 'application/json' },
      requestBody: `{"note":"${SENTINEL_KEY}"}`,
      responseBody: `{"echo":"${encodeURIComponent(SENTINEL_KEY)}"}`,
    },
  );

  it.each([['authorization'], ['x-api-key'], ['proxy-authorization'], ['cookie']])('drops the %s request header', (name) => {
    const entry = entryOf(leaky);
    expect(entry.request.headers.map((header) => header.name.toLowerCase())).not.toContain(name);
  });

  it('drops set-cookie and keeps harmless headers', () => {
    const entry = entryOf(leaky);
    expect(entry.response.headers).toEqual([{ name: 'content-type', value: 'application/json' }]);
    expect(entry.request.headers.map((header) => header.name)).toEqual(['content-type', 'x-custom']);
  });

  it('masks a known key in the URL and the model names, which the log masked only with the keys it knew then', () => {
    const entry = entryOf(
      logDetail({
        clientPath: `/v1/chat/completions?key=${encodeURIComponent(SENTINEL_KEY)}`,
        requestedModel: SENTINEL_KEY,
        upstreamModel: SENTINEL_KEY,
        responseModel: `m-${SENTINEL_KEY}`,
      }),
    );
    expect(findSentinel(JSON.stringify(entry))).toBeNull();
    expect(entry._airlock).toMatchObject({ requestedModel: REDACTED, upstreamModel: REDACTED, responseModel: `m-${REDACTED}` });
    expect(entry.request.url).toMatch(/^http:\/\/127\.0\.0\.1:8642\/v1\/chat\/completions\?key=/);
  });

  it('masks a known key in bodies, kept headers and the error message, in every form', () => {
    const text = JSON.stringify(entryOf(leaky));
    expect(findSentinel(text)).toBeNull();
    expect(text).toContain('upstream said the key');
  });
});

describe('the HAR 1.2 check these tests use', () => {
  const valid = harEntryOf(logDetail(), OPTIONS);
  it.each<[string, (entry: HarEntry) => unknown]>([
    ['a negative wait', (entry) => ({ ...entry, timings: { ...entry.timings, wait: -1 } })],
    ['a start time that is not ISO 8601', (entry) => ({ ...entry, startedDateTime: 'Thu Nov 20 2026' })],
    ['a missing required field', ({ cache: _cache, ...entry }) => entry],
    ['a custom field without the underscore', (entry) => ({ ...entry, airlock: {} })],
    ['a time that is not the sum of the timings', (entry) => ({ ...entry, time: entry.time + 5 })],
  ])('refuses %s', (_name, mutate) => {
    expect(harSchema.safeParse(harLogOf([mutate(valid) as HarEntry], '0.1.0')).success).toBe(false);
  });
});
