import packageJson from '../../../package.json' with { type: 'json' };
import type { ConfigFile, TraceExportSettings } from '../../contracts/config.ts';
import type { RequestStartEvent as StartEvent } from '../../contracts/lifecycle.ts';
import type { RequestEvents } from '../../contracts/requestEvents.ts';
import { redactKnownSecrets } from '../../core/redact.ts';
import type { ConfigSource } from '../configOverlay.ts';
import type { TraceHeaderValues } from '../secrets/traceHeaderCache.ts';
import { genAiSpanOf, maskedSpan, upstreamServerOf, type GenAiSpanData } from './genAiSpan.ts';
import type { SpanSink, TraceExportReport } from './otlpSpans.ts';
import { PLAIN_HINT, type NamedCommand } from '../../contracts/cli.ts';

/** Spans of requests that end while the SDK is still loading wait for it, up to this many. */
const MAX_WAITING_SPANS = 10_000;

/**
 * The OTLP/HTTP traces URL for the endpoint the user gave: a bare collector address gets
 * `/v1/traces`, as the OTLP exporter spec does for OTEL_EXPORTER_OTLP_ENDPOINT; a URL with a path
 * is used as given (a collector behind a proxy path).
 */
export function tracesUrlOf(endpoint: string): string {
  const url = new URL(endpoint);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.href;
}

const DROPPING_SINK: SpanSink = { record: () => undefined, shutdown: async () => undefined };

interface ActiveExport {
  /** The endpoint and the headers' names and revision: a change of any restarts the export. */
  signature: string;
  unsubscribe: () => void;
  /** The SDK's sink once loaded; spans wait in `waiting` meanwhile. */
  sink: Promise<SpanSink>;
}

export interface TraceExport {
  /** Sends what is queued and stops following the setting. */
  stop(): Promise<void>;
}

export interface TraceExportOptions {
  config: ConfigSource;
  events: RequestEvents;
  /** Failures of the collector, in words for the user (stderr for `airlock serve`, the window's notices). */
  report: TraceExportReport;
  /** The gateway keys (and local tokens): the events hold texts as clients and the gateway sent them, unmasked. */
  knownSecrets: () => string[];
  /** The values of the headers the setting names (TraceHeaderCache), read from the keychain. */
  headers: (settings: TraceExportSettings) => Promise<TraceHeaderValues>;
  /** Tells when values the keychain could not give at first were read after all (it answered again). */
  onHeadersReread?: (listener: () => void) => () => void;
  /** How a report names this Airlock's `export traces` (its --data-dir); the plain command unless given. */
  command?: NamedCommand;
}

const signatureOf = (settings: TraceExportSettings): string =>
  settings.otlpEndpoint === null ? '' : JSON.stringify([settings.otlpEndpoint, settings.headerNames, settings.headersRevision]);

/**
 * One OpenTelemetry GenAI span per request to the OTLP endpoint in `settings.traceExport`, with its
 * headers. Off while no endpoint is set, and then not even loaded; a change of the endpoint or the
 * headers applies to requests that start after it. The event listener only pairs a request's start
 * with its end and hands the span to the SDK's batch queue. What is reported is masked: a collector
 * may echo a header value in its answer's reason phrase.
 */
export function followTraceExport(options: TraceExportOptions): TraceExport {
  let active: ActiveExport | null = null;
  /** Exports being stopped (an endpoint changed): each sends what it queued. */
  const stopping = new Set<Promise<void>>();
  const report: TraceExportReport = (message, outcome) => options.report(redactKnownSecrets(message, options.knownSecrets()), outcome);

  const start = (settings: TraceExportSettings & { otlpEndpoint: string }): ActiveExport => {
    const url = tracesUrlOf(settings.otlpEndpoint);
    let loaded: SpanSink | null = null;
    const waiting: GenAiSpanData[] = [];
    const sdk = import('./otlpSpans.ts').catch((error: unknown) => {
      report(`trace export could not start (${error instanceof Error ? error.message : 'unknown'}): reinstall Airlock.`);
      return null;
    });
    // An unreachable keychain is a `problem` of the reading; anything else must not leave the sink rejected.
    const headers = options.headers(settings).catch(
      (error: unknown): TraceHeaderValues => ({
        values: new Map(),
        problem: `its headers could not be read (${error instanceof Error ? error.message : 'unknown'}): spans go without them.`,
      }),
    );
    const sink = Promise.all([sdk, headers]).then(([module, { values, problem }]): SpanSink => {
      if (module === null) {
        waiting.length = 0;
        return DROPPING_SINK;
      }
      if (problem !== null) report(`trace export to ${url}: ${problem}`);
      loaded = module.createOtlpSpanSink({
        tracesUrl: url,
        headers: Object.fromEntries(values),
        airlockVersion: packageJson.version,
        report,
        command: options.command ?? PLAIN_HINT.command,
      });
      for (const span of waiting.splice(0)) loaded.record(span);
      return loaded;
    });
    const started = new Map<string, StartEvent>();
    const unsubscribe = options.events.subscribe((event) => {
      if (event.type === 'start') started.set(event.requestId, event);
      if (event.type !== 'end') return;
      const startEvent = started.get(event.requestId);
      if (startEvent === undefined) return; // started before the export was turned on
      started.delete(event.requestId);
      const profile = options.config.snapshot().profiles.find((candidate) => candidate.id === startEvent.profileId);
      const span = maskedSpan(genAiSpanOf(startEvent, event, profile ? upstreamServerOf(profile.baseUrl) : null), options.knownSecrets());
      if (loaded !== null) loaded.record(span);
      else if (waiting.length < MAX_WAITING_SPANS) waiting.push(span);
    });
    return { signature: signatureOf(settings), unsubscribe, sink };
  };

  const stopExport = (current: ActiveExport): void => {
    current.unsubscribe();
    const done = current.sink
      .then((sink) => sink.shutdown())
      .catch((error: unknown) => report(`trace export stopped with an error: ${error instanceof Error ? error.message : 'unknown'}`))
      .finally(() => stopping.delete(done));
    stopping.add(done);
  };

  const apply = (config: ConfigFile): void => {
    const settings = config.settings.traceExport;
    if ((active?.signature ?? '') === signatureOf(settings)) return;
    if (active !== null) stopExport(active);
    const { otlpEndpoint } = settings;
    active = otlpEndpoint === null ? null : start({ ...settings, otlpEndpoint });
  };

  apply(options.config.snapshot());
  const stopFollowing = options.config.onChange(apply);
  // The export started without the headers the keychain could not give: it starts again with them.
  const stopRereads = options.onHeadersReread?.(() => {
    if (active === null) return;
    stopExport(active);
    active = null;
    apply(options.config.snapshot());
  });

  return {
    stop: async () => {
      stopFollowing();
      stopRereads?.();
      if (active !== null) stopExport(active);
      active = null;
      await Promise.all([...stopping]);
    },
  };
}
