import type { IncomingMessage } from 'node:http';
import { scanTopLevel, spliceChunks, type TopLevelScan } from './jsonScan.ts';

export interface ClientBody {
  chunks: Buffer[];
  byteLength: number;
}

/**
 * Reads the body as the chunks that arrived: no size limit, no concatenated copy. Plain stream
 * events rather than `for await`: the async iterator's set-up showed in the per-request profile.
 * Rejects when the client goes away (or the stream fails) before the body ended.
 */
export function readClientBody(req: IncomingMessage): Promise<ClientBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let byteLength = 0;
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      byteLength += chunk.length;
    };
    const settle = (error: Error | null): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve({ chunks, byteLength });
    };
    const onEnd = (): void => settle(null);
    const onError = (error: Error): void => settle(error);
    const onClose = (): void => settle(new Error('the client closed the connection before its request body ended'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

export type ParsedBody =
  | { kind: 'empty' }
  | { kind: 'json'; value: Record<string, unknown> }
  | { kind: 'large-json'; scan: TopLevelScan }
  | { kind: 'opaque' }
  | { kind: 'invalid'; message: string };

function looksLikeJson(contentType: string | undefined, body: ClientBody): boolean {
  if (contentType) return /[/+]json\b/i.test(contentType);
  const first = body.chunks[0]?.find((byte) => byte > 0x20);
  return first === 0x7b;
}

export function parseClientBody(body: ClientBody, contentType: string | undefined, parseLimitBytes: number): ParsedBody {
  if (body.byteLength === 0) return { kind: 'empty' };
  if (!looksLikeJson(contentType, body)) return { kind: 'opaque' };
  if (body.byteLength > parseLimitBytes) {
    const scan = scanTopLevel(body.chunks);
    return scan.isObject ? { kind: 'large-json', scan } : { kind: 'opaque' };
  }
  const text = (body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks, body.byteLength)).toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { kind: 'invalid', message: 'the request body must be a JSON object' };
    }
    return { kind: 'json', value: value as Record<string, unknown> };
  } catch (error) {
    return { kind: 'invalid', message: `the request body is not valid JSON (${(error as Error).message})` };
  }
}

export function modelOf(parsed: ParsedBody): string | null {
  if (parsed.kind === 'json') return typeof parsed.value.model === 'string' ? parsed.value.model : null;
  if (parsed.kind === 'large-json') return parsed.scan.model;
  return null;
}

export function streamFlagOf(parsed: ParsedBody): boolean {
  if (parsed.kind === 'json') return parsed.value.stream === true;
  if (parsed.kind === 'large-json') return parsed.scan.stream === true;
  return false;
}

export interface RewrittenBody {
  chunks: Buffer[];
  byteLength: number;
  /** True when Airlock added `stream_options.include_usage`; the client then never sees the usage chunk. */
  usageInjected: boolean;
}

/**
 * Sets the gateway's model id and, for streams, asks for usage. The original bytes go out
 * untouched when nothing changes; large bodies are spliced, never re-serialised.
 */
export function rewriteJsonBody(body: ClientBody, parsed: ParsedBody, upstreamModel: string | null, wantUsage: boolean): RewrittenBody {
  const unchanged = { chunks: body.chunks, byteLength: body.byteLength, usageInjected: false };
  if (parsed.kind === 'json') {
    const value = parsed.value;
    const modelChanges = upstreamModel !== null && value.model !== upstreamModel;
    const options = value.stream_options;
    const clientAskedUsage = typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true;
    const injectUsage = wantUsage && value.stream === true && !clientAskedUsage;
    if (!modelChanges && !injectUsage) return unchanged;
    const rewritten: Record<string, unknown> = { ...value };
    if (modelChanges) rewritten.model = upstreamModel;
    if (injectUsage) rewritten.stream_options = { ...(typeof options === 'object' && options !== null ? options : {}), include_usage: true };
    const bytes = Buffer.from(JSON.stringify(rewritten));
    return { chunks: [bytes], byteLength: bytes.length, usageInjected: injectUsage };
  }
  if (parsed.kind === 'large-json') {
    let chunks = body.chunks;
    let byteLength = body.byteLength;
    const scan = parsed.scan;
    if (upstreamModel !== null && scan.model !== null && scan.model !== upstreamModel) {
      const replacement = Buffer.from(JSON.stringify(upstreamModel).slice(1, -1));
      chunks = spliceChunks(chunks, scan.modelStart, scan.modelEnd, replacement);
      byteLength += replacement.length - (scan.modelEnd - scan.modelStart);
    }
    const injectUsage = wantUsage && scan.stream === true && !scan.hasStreamOptions;
    if (injectUsage) {
      const openBrace = firstByteOffset(chunks, 0x7b);
      const insertion = Buffer.from('"stream_options":{"include_usage":true},');
      chunks = spliceChunks(chunks, openBrace + 1, openBrace + 1, insertion);
      byteLength += insertion.length;
    }
    return { chunks, byteLength, usageInjected: injectUsage };
  }
  return unchanged;
}

function firstByteOffset(chunks: readonly Buffer[], byte: number): number {
  let offset = 0;
  for (const chunk of chunks) {
    const index = chunk.indexOf(byte);
    if (index >= 0) return offset + index;
    offset += chunk.length;
  }
  return -1;
}
