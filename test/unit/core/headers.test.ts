import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { buildClientResponseHeaders, buildUpstreamHeaders, pickUpstreamRequestId } from '../../../proxy/forward/headers.ts';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const OPTIONS = { contentLength: null, droppedHeaderPrefixes: [] };

describe('buildUpstreamHeaders', () => {
  it.each<[string, IncomingHttpHeaders]>([
    ['connection', { connection: 'keep-alive' }],
    ['keep-alive', { 'keep-alive': 'timeout=5' }],
    ['proxy-connection', { 'proxy-connection': 'keep-alive' }],
    ['proxy-authorization', { 'proxy-authorization': 'Basic abc' }],
    ['proxy-authenticate', { 'proxy-authenticate': 'Basic' }],
    ['te', { te: 'trailers' }],
    ['trailer', { trailer: 'x-checksum' }],
    ['transfer-encoding', { 'transfer-encoding': 'chunked' }],
    ['upgrade', { upgrade: 'websocket' }],
    ['a header named in Connection', { connection: 'close, X-Hop', 'x-hop': '1' }],
    ['host', { host: '127.0.0.1:8642' }],
    ['the client authorization', { authorization: 'Bearer airlock-client-token' }],
    ['x-api-key', { 'x-api-key': 'airlock-client-token' }],
    ['api-key', { 'api-key': 'airlock-client-token' }],
    ['cookie', { cookie: 'a=b' }],
    ['origin', { origin: 'http://localhost:5173' }],
    ['referer', { referer: 'http://localhost:5173/page' }],
    ['forwarded', { forwarded: 'for=10.0.0.1' }],
    ['x-forwarded-for', { 'x-forwarded-for': '10.0.0.1' }],
    ['x-forwarded-proto', { 'x-forwarded-proto': 'http' }],
    ['x-real-ip', { 'x-real-ip': '10.0.0.1' }],
    ['expect', { expect: '100-continue' }],
    ['an airlock header', { 'x-airlock-token': 'local' }],
  ])('drops %s', (_label, clientHeaders) => {
    const headers = buildUpstreamHeaders(clientHeaders, SENTINEL_KEY, OPTIONS);
    expect(Object.keys(headers).sort()).toEqual(['accept-encoding', 'authorization']);
  });

  it.each<[string, IncomingHttpHeaders, boolean, Record<string, string>]>([
    [
      'content type and user agent kept',
      { 'content-type': 'application/json', 'user-agent': 'OpenAI/JS 6' },
      false,
      {
        'content-type': 'application/json',
        'user-agent': 'OpenAI/JS 6',
      },
    ],
    [
      'repeated values joined',
      { accept: ['application/json', 'text/event-stream'] as unknown as string },
      false,
      {
        accept: 'application/json, text/event-stream',
      },
    ],
    ['anthropic headers kept for native forwarding', { 'anthropic-version': '2023-06-01' }, false, { 'anthropic-version': '2023-06-01' }],
    ['anthropic headers dropped when translating', { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'x' }, true, {}],
    ['client accept-encoding replaced', { 'accept-encoding': 'gzip, br' }, false, {}],
    ['client content-length replaced', { 'content-length': '999' }, false, {}],
    [
      'names in a mixed-case Connection dropped, others kept',
      { Connection: 'X-Hop, keep-alive', 'X-Hop': '1', 'X-Keep': '2' },
      false,
      { 'x-keep': '2' },
    ],
    [
      'names in repeated Connection values dropped',
      { connection: ['x-a', 'x-b'] as unknown as string, 'x-a': '1', 'x-b': '2', 'x-c': '3' },
      false,
      { 'x-c': '3' },
    ],
  ])('%s', (_label, clientHeaders, translatedFromAnthropic, kept) => {
    const headers = buildUpstreamHeaders(clientHeaders, SENTINEL_KEY, {
      contentLength: null,
      droppedHeaderPrefixes: translatedFromAnthropic ? anthropicAdapter.translation!.clientHeaderPrefixes : [],
    });
    expect(headers).toEqual({ ...kept, authorization: `Bearer ${SENTINEL_KEY}`, 'accept-encoding': 'identity' });
  });

  it.each<[number | null, string | undefined]>([
    [null, undefined],
    [0, '0'],
    [20_971_520, '20971520'],
  ])('content-length %s -> %s', (contentLength, expected) => {
    const headers = buildUpstreamHeaders({ 'content-length': '5' }, SENTINEL_KEY, { contentLength, droppedHeaderPrefixes: [] });
    expect(headers['content-length']).toBe(expected);
  });
});

describe('buildClientResponseHeaders', () => {
  const upstream = {
    'content-type': 'text/event-stream',
    'content-length': '120',
    'content-encoding': 'gzip',
    etag: '"abc"',
    'x-request-id': 'req_1',
    'set-cookie': ['session=1', 'b=2'],
    'alt-svc': 'h3=":443"',
    connection: 'keep-alive, x-hop',
    'x-hop': '1',
    'keep-alive': 'timeout=5',
    'transfer-encoding': 'chunked',
    'x-missing': undefined,
    // Airlock's own names, sent by a gateway, a relay or a chained Airlock: a request id the user quotes must name Airlock's row.
    'X-Airlock-Request-Id': 'gateway-id',
    'x-airlock-answered-by': 'other/model',
    'x-airlock-fallbacks': '2',
  };

  it.each<[boolean, Record<string, string | string[]>]>([
    [
      false,
      { 'content-type': 'text/event-stream', 'content-length': '120', 'content-encoding': 'gzip', etag: '"abc"', 'x-request-id': 'req_1' },
    ],
    [true, { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' }],
  ])('bodyRewritten=%s', (bodyRewritten, expected) => {
    expect(buildClientResponseHeaders(upstream, { bodyRewritten })).toEqual(expected);
  });
});

describe('pickUpstreamRequestId', () => {
  it.each<[Record<string, string | string[] | undefined>, string | null]>([
    [{ 'x-request-id': 'a', 'cf-ray': 'ray' }, 'a'],
    [{ 'request-id': 'b' }, 'b'],
    [{ 'x-oneapi-request-id': 'c', 'cf-ray': 'ray' }, 'c'],
    [{ 'openai-request-id': 'd' }, 'd'],
    [{ 'x-amzn-requestid': 'e' }, 'e'],
    [{ 'cf-ray': 'ray-hkg' }, 'ray-hkg'],
    [{ 'X-Request-Id': 'mixed-case' }, 'mixed-case'],
    [{ 'x-request-id': ['first', 'second'] }, 'first'],
    [{ 'x-request-id': '  ', 'request-id': 'fallback' }, 'fallback'],
    [{ 'content-type': 'application/json' }, null],
    [{ 'cf-ray': 'ray', 'Request-Id': 'ranked-higher' }, 'ranked-higher'],
    [{ 'CF-RAY': 'only-ray', 'x-other': 'x' }, 'only-ray'],
    [{ 'x-request-id': undefined, 'openai-request-id': 'd' }, 'd'],
  ])('%j -> %s', (headers, expected) => {
    expect(pickUpstreamRequestId(headers)).toBe(expected);
  });
});
