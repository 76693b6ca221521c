import { describe, expect, it } from 'vitest';
import { environmentHeaderSecrets, headerValueSecrets } from '../../../../proxy/app/export/traceHeaders.ts';
import { TraceHeaderCache } from '../../../../proxy/app/secrets/traceHeaderCache.ts';
import { traceExportSchema } from '../../../../proxy/contracts/config.ts';
import {
  cleanTraceHeaderValue,
  MAX_TRACE_HEADER_VALUE_CHARS,
  normalizeTraceHeaderName,
  traceHeaderNameProblem,
  traceHeaderValueProblem,
} from '../../../../proxy/contracts/traceHeaders.ts';
import { redactKnownSecrets, redactSecrets } from '../../../../proxy/core/redact.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, TRACE_HEADER_SENTINEL } from '../../../support/sentinel.ts';
import { commandHint } from '../../../../proxy/contracts/cli.ts';

describe('trace export header names: an RFC 9110 token the exporter does not set itself', () => {
  // The names hosted collectors document: Honeycomb, Grafana Cloud (Basic auth), New Relic, Datadog.
  it.each(['x-honeycomb-team', 'x-honeycomb-dataset', 'authorization', 'api-key', 'dd-api-key', "x!#$%&'*+.^_`|~1"])('takes %s', (name) =>
    expect(traceHeaderNameProblem(name)).toBeNull(),
  );

  it('is lowercase and trimmed, so one header has one spelling and one keychain entry', () => {
    expect(normalizeTraceHeaderName('  X-Honeycomb-Team ')).toBe('x-honeycomb-team');
  });

  it.each([
    ['', /give the header name/],
    ['x honeycomb', /"x honeycomb" is not a header name/],
    ['x-team:', /not a header name/],
    ['x-tëam', /not a header name/],
    ['x-team\r\nx-injected', /not a header name/],
    ['content-type', /"content-type" is set by the exporter/],
    ['content-length', /set by the exporter/],
    ['host', /set by the exporter/],
    ['user-agent', /set by the exporter/],
  ])('refuses %j', (name, message) => expect(traceHeaderNameProblem(name)).toMatch(message));
});

describe('trace export header values: what Node can send on one line, never quoted back', () => {
  it.each(['Basic MTIzNDU6Z2xjX2FiYw==', 'hcaik_01abc', 'a\tb', 'Latin-1 é is sendable'])('takes %j', (value) =>
    expect(traceHeaderValueProblem(value)).toBeNull(),
  );

  it('drops the whitespace around a value (a piped value ends with a newline)', () => {
    expect(cleanTraceHeaderValue(`  ${TRACE_HEADER_SENTINEL}\n`)).toBe(TRACE_HEADER_SENTINEL);
  });

  it.each([
    ['', /the value is empty/],
    [`${TRACE_HEADER_SENTINEL}\r\nx-injected: 1`, /line break \(CR or LF\)/],
    [`${TRACE_HEADER_SENTINEL}\ninjected`, /line break/],
    [`${TRACE_HEADER_SENTINEL}\0`, /NUL character/],
    [`${TRACE_HEADER_SENTINEL}\x07`, /control character/],
    [`${TRACE_HEADER_SENTINEL}🔑`, /past Latin-1/],
    ['x'.repeat(MAX_TRACE_HEADER_VALUE_CHARS + 1), /longer than 8192 characters/],
  ])('refuses %j without quoting it', (value, message) => {
    const problem = traceHeaderValueProblem(value) ?? '';
    expect(problem).toMatch(message);
    expect(findSentinel(problem, TRACE_HEADER_SENTINEL)).toBeNull();
  });

  it('airlock.json takes only lowercase, distinct, valid names', () => {
    expect(traceExportSchema.safeParse({ headerNames: ['api-key'] }).success).toBe(true);
    for (const headerNames of [['Api-Key'], ['api-key', 'api-key'], ['x y'], ['content-length']])
      expect(traceExportSchema.safeParse({ headerNames }).success, JSON.stringify(headerNames)).toBe(false);
  });
});

describe('header values join the masked secrets', () => {
  it('masks a value the shape checks alone would miss, in its encoded forms too', () => {
    const echoed = `401 Unknown API key ${TRACE_HEADER_SENTINEL} (${encodeURIComponent(TRACE_HEADER_SENTINEL)})`;
    // 22 plain characters: nothing masks it unless it is known.
    expect(redactSecrets(echoed, [])).toBe(echoed);
    const masked = redactSecrets(echoed, headerValueSecrets(TRACE_HEADER_SENTINEL));
    expect(masked).toBe('401 Unknown API key [redacted] ([redacted])');
  });

  it('masks the credentials of a `<scheme> <credentials>` value alone, and nothing too short to be a secret', () => {
    const basic = 'Basic MTIzNDU6Z2xjX2FiY2RlZmdo';
    expect(headerValueSecrets(basic)).toEqual([basic, 'MTIzNDU6Z2xjX2FiY2RlZmdo']);
    expect(redactKnownSecrets('got MTIzNDU6Z2xjX2FiY2RlZmdo', headerValueSecrets(basic))).toBe('got [redacted]');
    // Datadog's `compute_stats: true` is a header, not a secret: masking "true" would cut it from every log body.
    expect(headerValueSecrets('true')).toEqual([]);
  });

  it('masks the values the exporter takes from OTEL_EXPORTER_OTLP_HEADERS, decoded as it decodes them', () => {
    const secrets = environmentHeaderSecrets({
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Basic%20MTIzNDU6Z2xjX2FiY2RlZmdo, compute_stats=true`,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `x-honeycomb-team=${TRACE_HEADER_SENTINEL};meta=1,broken`,
    });
    expect(secrets).toEqual(
      expect.arrayContaining([
        'Basic MTIzNDU6Z2xjX2FiY2RlZmdo',
        'MTIzNDU6Z2xjX2FiY2RlZmdo',
        'Basic%20MTIzNDU6Z2xjX2FiY2RlZmdo',
        TRACE_HEADER_SENTINEL,
      ]),
    );
    expect(secrets).not.toContain('true');
    expect(environmentHeaderSecrets({})).toEqual([]);
  });
});

describe('TraceHeaderCache', () => {
  const settings = (headerNames: string[], headersRevision = 1) => ({
    otlpEndpoint: 'http://127.0.0.1:4318',
    headerNames,
    headersRevision,
  });

  it('reads the named values once per revision and shows names and last four only', async () => {
    const secrets = memorySecretStore({ 'trace-header:x-honeycomb-team': TRACE_HEADER_SENTINEL });
    const cache = new TraceHeaderCache(secrets);
    const read = await cache.valuesFor(settings(['x-honeycomb-team']));
    expect(read).toEqual({ values: new Map([['x-honeycomb-team', TRACE_HEADER_SENTINEL]]), problem: null });
    expect(cache.views(['x-honeycomb-team'])).toEqual([{ name: 'x-honeycomb-team', set: true, lastFour: '7Q2x' }]);
    expect(cache.values()).toEqual([TRACE_HEADER_SENTINEL]);

    await secrets.set('trace-header:x-honeycomb-team', 'another-team-key-9876');
    expect(cache.valuesFor(settings(['x-honeycomb-team']))).toBe(cache.valuesFor(settings(['x-honeycomb-team'])));
    expect((await cache.valuesFor(settings(['x-honeycomb-team'], 2))).values.get('x-honeycomb-team')).toBe('another-team-key-9876');
    expect(cache.values()).toEqual(['another-team-key-9876']);
  });

  it('names a header without a value and the way to set it', async () => {
    const cache = new TraceHeaderCache(memorySecretStore());
    const read = await cache.valuesFor(settings(['api-key']));
    expect(read.problem).toMatch(/the keychain holds no value for header api-key: spans go without it\./);
    expect(read.problem).toMatch(/airlock export traces --header api-key/);
    expect(cache.views(['api-key'])).toEqual([{ name: 'api-key', set: false, lastFour: null }]);
  });

  it("names its commands as the Airlock that reads them names them: its data directory, and serve's port", async () => {
    const hint = commandHint('/data/second', { port: () => 9100 });
    const missing = await new TraceHeaderCache(memorySecretStore(), hint).valuesFor(settings(['api-key']));
    expect(missing.problem).toContain('`npx airlock export traces --header api-key --data-dir /data/second`');
    const unavailable = await new TraceHeaderCache(unavailableSecretStore(), hint).valuesFor(settings(['api-key']));
    expect(unavailable.problem).toContain('`npx airlock serve --port 9100 --data-dir /data/second`');
  });

  it('without a keychain says how to run anyway, for header values', async () => {
    const read = await new TraceHeaderCache(unavailableSecretStore()).valuesFor(settings(['api-key']));
    expect(read.values.size).toBe(0);
    expect(read.problem).toMatch(/Start a keyring .* or set OTEL_EXPORTER_OTLP_HEADERS .* for this run/);
  });
});
