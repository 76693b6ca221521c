import { afterEach, describe, expect, it } from 'vitest';
import { followTraceExport, type TraceExport } from '../../../../proxy/app/export/traceExport.ts';
import type { ConfigSource } from '../../../../proxy/app/configOverlay.ts';
import { emptyConfig, type ConfigFile } from '../../../../proxy/contracts/config.ts';
import type { RequestLifecycleEvent } from '../../../../proxy/contracts/lifecycle.ts';
import { RequestEvents } from '../../../../proxy/contracts/requestEvents.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../../support/otlpReceiver.ts';

let receiver: OtlpReceiver | null = null;
let traceExport: TraceExport | null = null;

afterEach(async () => {
  await traceExport?.stop();
  await receiver?.close();
});

/** A config that already names the endpoint when Airlock starts, as `airlock.json` would. */
function configWith(otlpEndpoint: string): ConfigSource {
  const settings = emptyConfig().settings;
  const config: ConfigFile = { ...emptyConfig(), settings: { ...settings, traceExport: { ...settings.traceExport, otlpEndpoint } } };
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
    const events = new RequestEvents();
    traceExport = followTraceExport({
      config: configWith(receiver.url),
      events,
      report: (message) => reports.push(message),
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
