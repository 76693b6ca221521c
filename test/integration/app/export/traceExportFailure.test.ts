import { afterEach, describe, expect, it } from 'vitest';
import { followTraceExport, type TraceExport } from '../../../../proxy/app/export/traceExport.ts';
import type { ConfigSource } from '../../../../proxy/app/configOverlay.ts';
import { emptyConfig, type ConfigFile } from '../../../../proxy/contracts/config.ts';
import type { RequestLifecycleEvent } from '../../../../proxy/contracts/lifecycle.ts';
import { RequestEvents } from '../../../../proxy/contracts/requestEvents.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../../support/otlpReceiver.ts';
import { TraceHeaderCache } from '../../../../proxy/app/secrets/traceHeaderCache.ts';
import { KeychainNotAnsweringError, type SecretStore, traceHeaderAccount } from '../../../../proxy/contracts/secretStore.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { TRACE_HEADER_SENTINEL } from '../../../support/sentinel.ts';
import { commandHint } from '../../../../proxy/contracts/cli.ts';

let receiver: OtlpReceiver | null = null;
let traceExport: TraceExport | null = null;

afterEach(async () => {
  await traceExport?.stop();
  await receiver?.close();
});

/** A config that already names the endpoint (and headers) when Airlock starts, as `airlock.json` would. */
function configWith(otlpEndpoint: string, headerNames: string[] = []): ConfigSource {
  const settings = emptyConfig().settings;
  const config: ConfigFile = {
    ...emptyConfig(),
    settings: { ...settings, traceExport: { ...settings.traceExport, otlpEndpoint, headerNames, headersRevision: 1 } },
  };
  return { snapshot: () => config, onChange: () => () => undefined };
}

/** One finished request's start and end, as the proxy publishes them. */
function publishRequest(events: RequestEvents, requestId: string): void {
  const start: RequestLifecycleEvent = {
    type: 'start',
    requestId,
    startedAtMs: Date.now(),
    method: 'POST',
    clientPath: '/v1/chat/completions',
    upstreamPath: '/v1/chat/completions',
    profileId: null,
    clientName: null,
    protocol: 'openai',
    protocolMode: 'native',
    requestedModel: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    stream: false,
    notes: [],
  };
  events.emit(start);
  events.emit({
    type: 'end',
    requestId,
    status: 200,
    durationMs: 5,
    ttfbMs: 5,
    retries: 0,
    errorClass: null,
    errorMessage: null,
    errorCode: null,
    responseModel: 'gpt-4o-mini',
    upstreamRequestId: null,
    usage: { inputTokens: 1, outputTokens: 1 },
    usageSource: 'reported',
    costCredits: null,
    bodies: {
      requestHeaders: {},
      responseHeaders: {},
      requestBody: null,
      requestBodyTruncated: false,
      responseBody: null,
      responseBodyTruncated: false,
      streamText: null,
    },
  });
}

describe('trace export when the collector refuses', () => {
  it('says once what failed and what to do, and once when spans go through again', async () => {
    receiver = await startOtlpReceiver();
    const reports: string[] = [];
    const outcomes: (string | undefined)[] = [];
    const events = new RequestEvents();
    traceExport = followTraceExport({
      config: configWith(receiver.url),
      events,
      report: (message, outcome) => {
        reports.push(message);
        outcomes.push(outcome);
      },
      knownSecrets: () => [],
      headers: async () => ({ values: new Map(), problem: null }),
    });

    // 400 is not retryable in OTLP/HTTP: the exporter gives the batch up at once.
    receiver.refuseWith(400);
    publishRequest(events, 'alk_refused_1');
    await expect.poll(() => reports.length).toBe(1);
    expect(reports[0]).toMatch(
      /^trace export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed \(.+\): spans are dropped until it answers\./,
    );
    expect(reports[0]).toMatch(/change or clear the OTLP endpoint/);

    publishRequest(events, 'alk_refused_2');
    await expect.poll(() => receiver?.rawBodies.length).toBe(2);
    receiver.refuseWith(null);
    publishRequest(events, 'alk_taken');
    await expect.poll(() => receiver?.spans.map((span) => span.attributes['airlock.request_id'])).toEqual(['alk_taken']);
    await expect.poll(() => reports.length).toBe(2);
    expect(reports[1]).toMatch(/works again/);
    // The failure's notice goes away with it (the window's notices, startAirlock.ts).
    expect(outcomes).toEqual([undefined, 'working']);
  });
});

describe('trace export when the collector refuses the credentials', () => {
  it('names the header command as this Airlock names it (its data directory)', async () => {
    receiver = await startOtlpReceiver();
    const reports: string[] = [];
    const events = new RequestEvents();
    traceExport = followTraceExport({
      config: configWith(receiver.url),
      events,
      report: (message) => reports.push(message),
      knownSecrets: () => [],
      headers: async () => ({ values: new Map(), problem: null }),
      command: commandHint('/data/second').command,
    });
    receiver.refuseWith(401);
    publishRequest(events, 'alk_refused_auth');
    await expect.poll(() => reports.length).toBe(1);
    expect(reports[0]).toContain('the collector refused the credentials');
    expect(reports[0]).toContain('`npx airlock export traces --header <name> --data-dir /data/second`');
  });
});

describe('trace export when its header values cannot be read', () => {
  it.each([
    [
      'the keychain has none',
      async () => ({ values: new Map<string, string>(), problem: 'the keychain holds no value for header api-key' }),
    ],
    [
      'the reading fails',
      async (): Promise<never> => {
        throw new Error('keychain read broke');
      },
    ],
  ])('when %s, says so once and still sends the spans, without the header', async (_case, headers) => {
    receiver = await startOtlpReceiver();
    const reports: string[] = [];
    const events = new RequestEvents();
    traceExport = followTraceExport({
      config: configWith(receiver.url),
      events,
      report: (message) => reports.push(message),
      knownSecrets: () => [],
      headers,
    });
    publishRequest(events, 'alk_without_header');
    await expect.poll(() => receiver?.spans.map((span) => span.attributes['airlock.request_id'])).toEqual(['alk_without_header']);
    expect(receiver.requestHeaders[0]?.['api-key']).toBeUndefined();
    expect(reports).toEqual([
      expect.stringMatching(
        /^trace export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: (the keychain holds no value|its headers could not be read \(keychain read broke\))/,
      ),
    ]);
  });
});

describe('trace export when the keychain did not answer at start', () => {
  it('starts again with the header once the keychain answers, instead of sending spans without it for the whole run', async () => {
    receiver = await startOtlpReceiver();
    const held = memorySecretStore({ [traceHeaderAccount('x-honeycomb-team')]: TRACE_HEADER_SENTINEL });
    let answering = false;
    const answersAgain = new Set<() => void>();
    const slowKeychain: SecretStore = {
      ...held,
      get: (account) => (answering ? held.get(account) : Promise.reject(new KeychainNotAnsweringError(30_000))),
      onAnswersAgain: (listener) => {
        answersAgain.add(listener);
        return () => answersAgain.delete(listener);
      },
    };
    const config = configWith(receiver.url, ['x-honeycomb-team']);
    const cache = new TraceHeaderCache(slowKeychain);
    const following = cache.follow(config);
    await following.ready;
    const events = new RequestEvents();
    traceExport = followTraceExport({
      config,
      events,
      report: () => undefined,
      knownSecrets: () => [],
      headers: (settings) => cache.valuesFor(settings),
      onHeadersReread: (listener) => cache.onValuesReread(listener),
    });
    publishRequest(events, 'alk_before_answer');
    await expect.poll(() => receiver?.rawBodies.length).toBe(1);
    expect(receiver.requestHeaders[0]?.['x-honeycomb-team']).toBeUndefined();

    const reread = new Promise<void>((resolve) => cache.onValuesReread(resolve));
    answering = true;
    for (const listener of answersAgain) listener();
    await reread;
    publishRequest(events, 'alk_after_answer');
    await expect.poll(() => receiver?.rawBodies.findIndex((body) => body.includes('alk_after_answer'))).toBeGreaterThan(0);
    const index = receiver.rawBodies.findIndex((body) => body.includes('alk_after_answer'));
    expect(receiver.requestHeaders[index]?.['x-honeycomb-team']).toBe(TRACE_HEADER_SENTINEL);
    following.stop();
  });
});
