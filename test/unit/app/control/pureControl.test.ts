import { describe, expect, it } from 'vitest';
import type { SpendByDayRow } from '../../../../proxy/contracts/log.ts';
import { modelIdsFrom } from '../../../../proxy/forward/gatewayModels.ts';
import { REDACTED } from '../../../../proxy/core/redact.ts';
import { bodyViewOf, detailOf, errorTitle, INLINE_BODY_LIMIT_BYTES } from '../../../../proxy/app/control/mapping.ts';
import { rowFromStart } from '../../../../proxy/store/write/rowDraft.ts';
import { buildBodiesRecord } from '../../../../proxy/store/write/bodyRecord.ts';
import { capturedBodies } from '../../../support/lifecycleEvents.ts';
import { buildSupportInfo } from '../../../../renderer/src/detail/copyText.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { testStep } from '../../../../proxy/app/control/profileTest.ts';
import { decodeCursor, encodeCursor, parseRequestQuery } from '../../../../proxy/app/control/requestQuery.ts';
import { daysByModel, hoursByModel, rangeStartMs, sumByGroup } from '../../../../proxy/app/control/spend.ts';

describe('parseRequestQuery', () => {
  it.each<[Record<string, unknown>, object]>([
    [{}, {}],
    [
      { status: 'error', model: 'm', client: 'aider' },
      { status: 'error', model: 'm', clientName: 'aider' },
    ],
    [
      { status: '429', limit: '50', fromMs: '10' },
      { status: 429, limit: 50, fromMs: 10 },
    ],
    [
      { errorClass: 'auth', text: ' hello ' },
      { errorClass: 'auth', text: 'hello' },
    ],
    [{ cursor: encodeCursor({ startedAtMs: 5, id: 'r' }) }, { beforeCursor: { startedAtMs: 5, id: 'r' } }],
    [{ unknown: 'ignored' }, {}],
  ])('%j', (query, expected) => {
    expect(parseRequestQuery(query)).toEqual(expected);
  });

  it.each([[{ status: '5xx' }], [{ errorClass: 'nope' }], [{ limit: '100000' }], [{ cursor: 'garbage' }], [{ text: 'ab\u0000cd' }]])(
    'rejects %j',
    (query) => {
      expect(() => parseRequestQuery(query)).toThrow();
    },
  );

  it('round-trips a cursor', () => {
    expect(decodeCursor(encodeCursor({ startedAtMs: 123, id: 'a b' }))).toEqual({ startedAtMs: 123, id: 'a b' });
  });
});

describe('spend aggregation', () => {
  const row = (
    day: string,
    group: string | null,
    costCredits: number,
    requests = 1,
    unpricedRequests = 0,
    statement: Partial<Pick<SpendByDayRow, 'gatewayCost' | 'gatewayCostProfiles' | 'unstatedRequests'>> = {},
  ): SpendByDayRow => ({
    day,
    group,
    requests,
    costCredits,
    unpricedRequests,
    inputTokens: 10 * requests,
    outputTokens: 20 * requests,
    gatewayCost: null,
    gatewayCostProfiles: statement.gatewayCost === undefined || statement.gatewayCost === null ? [] : ['gw'],
    unstatedRequests: 0,
    ...statement,
  });
  const rows = [
    row('2026-01-01', 'a', 1.5, 1, 0, { gatewayCost: 1.4, unstatedRequests: 0 }),
    // The gateway stated the charge of one of the two.
    row('2026-01-02', 'a', 0.25, 2, 0, { gatewayCost: 0.2, unstatedRequests: 1 }),
    row('2026-01-02', 'b', 3, 1, 0, { gatewayCost: null, unstatedRequests: 1 }),
    row('2026-01-01', null, 0, 1, 1),
  ];

  it("sums per group, most expensive first, unknown groups named, the gateway's statement apart from the credits", () => {
    expect(sumByGroup(rows)).toEqual([
      {
        key: 'b',
        requests: 1,
        inputTokens: 10,
        outputTokens: 20,
        costCredits: 3,
        unpricedRequests: 0,
        gatewayCost: null,
        gatewayCostMixed: false,
        unstatedRequests: 1,
      },
      {
        key: 'a',
        requests: 3,
        inputTokens: 30,
        outputTokens: 60,
        costCredits: 1.75,
        unpricedRequests: 0,
        gatewayCost: expect.closeTo(1.6, 12),
        gatewayCostMixed: false,
        unstatedRequests: 1,
      },
      {
        key: '(unknown)',
        requests: 1,
        inputTokens: 10,
        outputTokens: 20,
        costCredits: 0,
        unpricedRequests: 1,
        gatewayCost: null,
        gatewayCostMixed: false,
        unstatedRequests: 0,
      },
    ]);
  });

  it("pivots days by model in date order, with the day's statement by the gateway", () => {
    expect(daysByModel(rows)).toEqual([
      { day: '2026-01-01', creditsByModel: { a: 1.5, '(unknown)': 0 }, gatewayCost: 1.4, gatewayCostMixed: false, unstatedRequests: 0 },
      { day: '2026-01-02', creditsByModel: { a: 0.25, b: 3 }, gatewayCost: 0.2, gatewayCostMixed: false, unstatedRequests: 2 },
    ]);
  });

  it("keeps a client's model named like an object's own property as a model, its credits a number", () => {
    const named = [row('2026-01-01', 'constructor', 1), row('2026-01-01', '__proto__', 2), row('2026-01-01', 'toString', 3)];
    const [day] = daysByModel([...named, ...named]);
    expect(Object.entries(day?.creditsByModel ?? {})).toEqual([
      ['constructor', 2],
      ['__proto__', 4],
      ['toString', 6],
    ]);
    // What the window reads: the JSON of the answer.
    expect(Object.keys(JSON.parse(JSON.stringify(day)).creditsByModel)).toEqual(['constructor', '__proto__', 'toString']);
  });

  it("names today's hours HH:00 up to the current one, empty hours included", () => {
    const hourRows = [row('2026-01-02 01', 'a', 2, 1, 0, { gatewayCost: 1.9, unstatedRequests: 0 })];
    expect(hoursByModel(hourRows, new Date(2026, 0, 2, 2, 30).getTime())).toEqual([
      { day: '00:00', creditsByModel: {}, gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 0 },
      { day: '01:00', creditsByModel: { a: 2 }, gatewayCost: 1.9, gatewayCostMixed: false, unstatedRequests: 0 },
      { day: '02:00', creditsByModel: {}, gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 0 },
    ]);
  });

  it.each([
    ['today', 0],
    ['7d', 6],
    ['30d', 29],
  ] as const)('%s starts %i local days before today', (range, daysBack) => {
    const now = new Date(2026, 2, 31, 15, 30).getTime();
    expect(new Date(rangeStartMs(range, now))).toEqual(new Date(2026, 2, 31 - daysBack));
  });
});

describe('profile test steps', () => {
  it.each([
    [
      'models',
      { status: 200, errorClass: null, durationMs: 5, bodyText: '' },
      true,
      /listed 3 models: host, route and key work.*does not prove/,
    ],
    ['chat', { status: 200, errorClass: null, durationMs: 5, bodyText: '' }, true, /Model m answered/],
    ['models', { status: 401, errorClass: 'auth', durationMs: 5, bodyText: '' }, false, /refused the key/],
    ['chat', { status: 404, errorClass: 'model_not_found', durationMs: 5, bodyText: '' }, false, /does not know this model/],
    ['models', { status: null, errorClass: 'timeout_connect', durationMs: 5, bodyText: '' }, false, /./],
    [
      'models',
      { status: null, errorClass: 'network', durationMs: 5, bodyText: '', networkCode: 'proxy_unreachable' },
      false,
      /could not connect to the HTTP proxy it reaches the gateway through/,
    ],
  ] as const)('%s with %j → ok %s', (name, probe, ok, meaning) => {
    const step = testStep(name, probe, { modelCount: 3, model: 'm' });
    expect(step.ok).toBe(ok);
    expect(step.meaning).toMatch(meaning);
    expect(step.fix === null).toBe(ok);
  });
});

describe('small mappings', () => {
  it.each([
    ['{"data":[{"id":"a"},{"id":"b"},{"name":"c"}]}', ['a', 'b']],
    ['{"object":"list"}', []],
    ['<html>', []],
    ['{"data":[{"id":"ft:gpt-4o-mini:sk-sentinel-0123456789"},{"id":"gpt-4o"}]}', [`ft:gpt-4o-mini:${REDACTED}`, 'gpt-4o']],
  ])('modelIdsFrom(%s)', (body, expected) => {
    expect(modelIdsFrom(body, ['sk-sentinel-0123456789'])).toEqual(expected);
  });

  it.each([
    ['model_not_found', 'Model not found'],
    ['auth', 'Key rejected'],
    ['html_instead_of_json', 'Web page instead of an API answer'],
    ['timeout_total', 'Total timeout'],
    ['circuit_open', 'Circuit open'],
  ] as const)('errorTitle(%s)', (errorClass, expected) => {
    expect(errorTitle(errorClass)).toBe(expected);
  });

  it('inlines small bodies and leaves large ones to be fetched', () => {
    expect(bodyViewOf('{}', false, 'application/json')).toEqual({
      sizeBytes: 2,
      truncated: false,
      contentType: 'application/json',
      text: '{}',
    });
    expect(bodyViewOf('x'.repeat(INLINE_BODY_LIMIT_BYTES + 1), true, null)).toMatchObject({ text: null, truncated: true });
    expect(bodyViewOf(null, false, null)).toBeNull();
  });
});

describe('a request detail from a log written before request ids were masked', () => {
  const row = {
    ...rowFromStart({
      type: 'start',
      requestId: 'alk_1',
      startedAtMs: Date.UTC(2026, 0, 2),
      method: 'POST',
      clientPath: '/v1/chat/completions',
      upstreamPath: 'chat/completions',
      profileId: 'main',
      clientName: 'cli',
      protocol: 'openai',
      protocolMode: 'native',
      requestedModel: 'gpt-4o-mini',
      upstreamModel: 'gpt-4o-mini',
      stream: false,
      notes: [],
    }),
    status: 200,
    upstreamRequestId: `req_${SENTINEL_KEY}`,
  };

  it('says a stream whose events were cut at the body cap is truncated, as it says of any other answer', () => {
    const events = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n'.repeat(40);
    const captured = capturedBodies({ responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: Buffer.from(events) });
    const bodies = buildBodiesRecord({ ...captured, streamText: 'hi'.repeat(40) }, true, 1024, []);
    const detail = detailOf({ row: { ...row, stream: true }, bodies });
    expect(detail.streamEvents).toMatchObject({ truncated: true });
  });

  it('masks the key in the gateway request id (and only the key), so the support info the window builds from it holds none', () => {
    const detail = detailOf({ row, bodies: null }, [SENTINEL_KEY]);
    expect(detail.upstreamRequestId).toBe('req_[redacted]');
    const support = buildSupportInfo(detail);
    expect(support).toContain('Request ID: req_[redacted]');
    expect(findSentinel(support)).toBeNull();
    // Only the key goes: a long random id is what support looks up.
    const id = 'req_Xk9mP2vQ7rT4wY8zB3nC6dF1gH5jL0aS';
    expect(detailOf({ row: { ...row, upstreamRequestId: id }, bodies: null }, [SENTINEL_KEY]).upstreamRequestId).toBe(id);
  });
});
