import type { IncomingHttpHeaders } from 'node:http';

type HeaderValue = string | string[] | undefined;
type HeaderBag = Record<string, HeaderValue>;

/** RFC 9110 section 7.6.1: meaningful for one connection only, never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/**
 * Request headers the gateway must not see: client credentials (replaced by the key), browser and
 * network identity, framing the proxy sets itself, and `expect` (the body is already being sent).
 */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'origin',
  'referer',
  'forwarded',
  'x-real-ip',
  'content-length',
  'accept-encoding',
  'expect',
]);
/** Local-only prefixes: forwarding data of the client's network, Airlock's own tokens, and (when translating) Anthropic's. */
const DROPPED_REQUEST_PREFIXES = ['x-forwarded-', 'x-airlock-'];
const ANTHROPIC_PREFIX = 'anthropic-';

export interface UpstreamHeaderOptions {
  contentLength: number | null;
  /** True when the body is translated to Chat Completions and the gateway sees an OpenAI request. */
  dropAnthropicHeaders: boolean;
}

export function buildUpstreamHeaders(
  clientHeaders: IncomingHttpHeaders,
  apiKey: string,
  options: UpstreamHeaderOptions,
): Record<string, string> {
  const connectionListed = connectionTokens(clientHeaders);
  const result: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(clientHeaders)) {
    const name = rawName.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(name) || connectionListed.has(name) || DROPPED_REQUEST_HEADERS.has(name)) continue;
    if (DROPPED_REQUEST_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    if (options.dropAnthropicHeaders && name.startsWith(ANTHROPIC_PREFIX)) continue;
    result[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (options.contentLength !== null) result['content-length'] = String(options.contentLength);
  result['authorization'] = `Bearer ${apiKey}`;
  // The proxy reads usage from the body and relays SSE as it arrives: compression would defeat both.
  result['accept-encoding'] = 'identity';
  return result;
}

/**
 * Response headers are the gateway's own minus connection framing, cookies (they would be set for
 * 127.0.0.1 and mean nothing there), `alt-svc` (it names the gateway's other endpoints, not ours),
 * and, when Airlock rewrote the body, everything that described the original bytes.
 */
const DROPPED_RESPONSE_HEADERS = new Set(['set-cookie', 'set-cookie2', 'alt-svc']);
const BODY_DESCRIBING_HEADERS = new Set(['content-length', 'content-encoding', 'content-md5', 'etag']);

export function buildClientResponseHeaders(
  upstream: HeaderBag,
  options: { bodyRewritten: boolean },
): Record<string, string | string[]> {
  const connectionListed = connectionTokens(upstream);
  const result: Record<string, string | string[]> = {};
  for (const [rawName, value] of Object.entries(upstream)) {
    const name = rawName.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(name) || connectionListed.has(name) || DROPPED_RESPONSE_HEADERS.has(name)) continue;
    if (options.bodyRewritten && BODY_DESCRIBING_HEADERS.has(name)) continue;
    result[name] = value;
  }
  return result;
}

/** Most specific first; `cf-ray` only identifies the CDN hop, so it is the last resort. */
const REQUEST_ID_HEADERS = [
  'x-request-id',
  'request-id',
  'x-oneapi-request-id',
  'openai-request-id',
  'x-amzn-requestid',
  'cf-ray',
];

export function pickUpstreamRequestId(headers: HeaderBag): string | null {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  for (const name of REQUEST_ID_HEADERS) {
    const value = byName.get(name);
    const first = (Array.isArray(value) ? value[0] : value)?.trim();
    if (first) return first;
  }
  return null;
}

/** Header names listed in Connection are hop-by-hop too (RFC 9110 section 7.6.1). */
function connectionTokens(headers: HeaderBag): Set<string> {
  const tokens = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'connection' || value === undefined) continue;
    for (const line of Array.isArray(value) ? value : [value]) {
      for (const token of line.split(',')) {
        const trimmed = token.trim().toLowerCase();
        if (trimmed !== '') tokens.add(trimmed);
      }
    }
  }
  return tokens;
}
