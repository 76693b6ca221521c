import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  name: string;
  /** OTLP's SpanKind: 3 is CLIENT. */
  kind: number;
  startTimeMs: number;
  endTimeMs: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP's status code: 2 is ERROR; 0 (unset) when absent. */
  statusCode: number;
  statusMessage: string | null;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** The collector's base address (http://127.0.0.1:PORT), as a user types it. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body as received, to search for what must never leave. */
  rawBodies: string[];
  /** The headers of each of rawBodies' requests, in the same order. */
  requestHeaders: IncomingHttpHeaders[];
  /** Content types the exporter sent. */
  contentTypes: string[];
  /**
   * Answer every export with this status (a collector refusing), or take them again (null); the
   * reason phrase, when given, is made from the request's headers (a collector echoing a key).
   */
  refuseWith(status: number | null, reasonOf?: (headers: IncomingHttpHeaders) => string): void;
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) attributes[key] = value.stringValue;
    // OTLP JSON may write 64-bit integers as strings.
    else if (value.intValue !== undefined) attributes[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) attributes[key] = value.doubleValue;
    else if (value.boolValue !== undefined) attributes[key] = value.boolValue;
  }
  return attributes;
}

const nanosToMs = (nanos: string | number): number => Number(BigInt(nanos) / 1_000_000n);

/**
 * A stand-in OpenTelemetry collector: OTLP/HTTP with the JSON encoding (the protocol's
 * `/v1/traces` path), decoding each export request into spans. Listens on 127.0.0.1 only.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rawBodies: string[] = [];
  const contentTypes: string[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  let refusal: { status: number; reasonOf: ((headers: IncomingHttpHeaders) => string) | undefined } | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      contentTypes.push(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      rawBodies.push(body);
      requestHeaders.push(req.headers);
      if (refusal !== null) {
        const reason = refusal.reasonOf?.(req.headers);
        const headers = { 'content-type': 'application/json' };
        (reason === undefined ? res.writeHead(refusal.status, headers) : res.writeHead(refusal.status, reason, headers)).end(
          '{"code":3,"message":"refused by the test"}',
        );
        return;
      }
      const payload = JSON.parse(body) as {
        resourceSpans?: Array<{
          resource?: { attributes?: OtlpKeyValue[] };
          scopeSpans?: Array<{
            spans?: Array<{
              name: string;
              kind: number;
              startTimeUnixNano: string;
              endTimeUnixNano: string;
              attributes?: OtlpKeyValue[];
              status?: { code?: number; message?: string };
            }>;
          }>;
        }>;
      };
      for (const resourceSpans of payload.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              name: span.name,
              kind: span.kind,
              startTimeMs: nanosToMs(span.startTimeUnixNano),
              endTimeMs: nanosToMs(span.endTimeUnixNano),
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              statusMessage: span.status?.message ?? null,
              resource,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    rawBodies,
    requestHeaders,
    contentTypes,
    refuseWith: (status, reasonOf) => {
      refusal = status === null ? null : { status, reasonOf };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
