import { ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { GenAiSpanData } from './genAiSpan.ts';
import type { NamedCommand } from '../../contracts/cli.ts';

/** Spans leave in batches at most this often: a trace shows up within seconds, a burst goes out as one request. */
const EXPORT_DELAY_MS = 2_000;
/** A collector that does not answer in this time is skipped for that batch, never waited on by a request. */
const EXPORT_TIMEOUT_MS = 10_000;

/** Says what the export does wrong, or `working` once it works again after a failure. */
export type TraceExportReport = (message: string, outcome?: 'working') => void;

export interface SpanSink {
  record(span: GenAiSpanData): void;
  /** Sends what is queued, then stops. */
  shutdown(): Promise<void>;
}

/** The HTTP status of a collector's refusal: the exporter's OTLPExporterError carries it as `code`. */
function statusOf(error: Error | undefined): number | null {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : null;
}

/** A refusal of the credentials (401, 403): the headers are what to fix, not the collector. */
const isAuthRefusal = (error: Error | undefined): boolean => statusOf(error) === 401 || statusOf(error) === 403;

function describeFailure(error: Error | undefined): string {
  const message = error?.message || 'no answer';
  const status = statusOf(error);
  return status === null ? message : `${status} ${message}`;
}

function fixFor(error: Error | undefined, command: NamedCommand): string {
  return isAuthRefusal(error)
    ? `the collector refused the credentials, spans are dropped until it takes them. Check the headers it needs (Connect > Trace export in the window, or \`${command('export traces --header <name>')}\`).`
    : 'spans are dropped until it answers. Start the collector, or change or clear the OTLP endpoint (Connect > Trace export in the window).';
}

/** Tells the user once when the collector stops taking spans, and once when it takes them again. */
function reportingExporter(exporter: SpanExporter, url: string, report: TraceExportReport, command: NamedCommand): SpanExporter {
  let failing = false;
  return {
    export(spans, resultCallback) {
      exporter.export(spans, (result) => {
        const failed = result.code !== ExportResultCode.SUCCESS;
        if (failed && !failing)
          report(`trace export to ${url} failed (${describeFailure(result.error)}): ${fixFor(result.error, command)}`);
        else if (!failed && failing) report(`trace export to ${url} works again.`, 'working');
        failing = failed;
        resultCallback(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

export interface OtlpSpanSinkOptions {
  tracesUrl: string;
  /** Sent with every export (a collector's API key); over the exporter's own from OTEL_EXPORTER_OTLP_HEADERS. */
  headers: Record<string, string>;
  airlockVersion: string;
  /** Already masks what it is given (traceExport.ts). */
  report: TraceExportReport;
  /** How a fix names this Airlock's `export traces` (its --data-dir). */
  command: NamedCommand;
}

/**
 * The OpenTelemetry JS SDK doing the exporting: its batch processor queues and sends spans, its
 * OTLP/HTTP exporter encodes them (OTLP JSON) and retries what a collector refuses for now. Loaded
 * only once an endpoint is set (traceExport.ts), as the SDK takes about 0.2 s to load.
 */
export function createOtlpSpanSink({ tracesUrl, headers, airlockVersion, report, command }: OtlpSpanSinkOptions): SpanSink {
  const exporter = reportingExporter(
    new OTLPTraceExporter({ url: tracesUrl, headers, timeoutMillis: EXPORT_TIMEOUT_MS }),
    tracesUrl,
    report,
    command,
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'airlock', [ATTR_SERVICE_VERSION]: airlockVersion }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: EXPORT_DELAY_MS, exportTimeoutMillis: EXPORT_TIMEOUT_MS })],
  });
  const tracer = provider.getTracer('airlock', airlockVersion);
  return {
    record(data) {
      // A root span each: the proxy's request is where the trace starts (no incoming trace context is read).
      const span = tracer.startSpan(
        data.name,
        { kind: SpanKind.CLIENT, startTime: data.startTimeMs, attributes: data.attributes },
        ROOT_CONTEXT,
      );
      if (data.errorDescription !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: data.errorDescription });
      span.end(data.endTimeMs);
    },
    shutdown: () => provider.shutdown(),
  };
}
