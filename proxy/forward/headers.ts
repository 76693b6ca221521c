import type { IncomingHttpHeaders } from 'node:http';

type HeaderValue = string | string[] | undefined;
type HeaderBag = Record<string, HeaderValue>;

/** A header's value, the first when it came more than once. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

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
 * Credentials a client sends for another service, each a key on its own: the gateway must never get
 * them (nor a gateway behind it: LiteLLM forwards a client's `x-` headers to its providers when told
 * to, docs.litellm.ai/docs/proxy/forward_client_headers). Google's Gemini SDKs send their key as
 * `x-goog-api-key` (googleapis/js-genai, python-genai); LiteLLM's proxy takes its key as
 * `x-litellm-api-key` (litellm/proxy/pass_through_endpoints/common_utils.py), Portkey as
 * `x-portkey-api-key`, Helicone as `Helicone-Auth`, Cloudflare's AI Gateway as
 * `cf-aig-authorization`, Azure API Management as `Ocp-Apim-Subscription-Key`; AWS's SigV4 signs
 * with a session token in `x-amz-security-token`. Kept, as no credential: `OpenAI-Organization` and
 * `OpenAI-Project` (ids choosing whose quota a request counts against, platform.openai.com API
 * reference, "Authentication"), `x-goog-user-project` (a project id), Portkey's `x-portkey-virtual-key`
 * and `x-portkey-config` (of use only with a Portkey key, and what a Portkey gateway routes by).
 */
export const FOREIGN_CREDENTIAL_HEADERS: readonly string[] = [
  'x-goog-api-key',
  'x-litellm-api-key',
  'x-portkey-api-key',
  'helicone-auth',
  'cf-aig-authorization',
  'ocp-apim-subscription-key',
  'x-amz-security-token',
];

/**
 * Request headers the gateway must not see: client credentials (replaced by the key) and those for
 * other services, browser and network identity, framing the proxy sets itself, `expect` (the body is
 * already being sent) and `content-encoding` (a compressed body is decoded on arrival, so the
 * gateway gets it plain).
 */
const DROPPED_REQUEST_HEADERS = new Set([
  ...FOREIGN_CREDENTIAL_HEADERS,
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
  'content-encoding',
  'expect',
]);
/** Local-only prefixes: forwarding data of the client's network and Airlock's own tokens. */
const FORWARDED_PREFIX = 'x-forwarded-';
const AIRLOCK_PREFIX = 'x-airlock-';

export interface UpstreamHeaderOptions {
  contentLength: number | null;
  /** Replaces the client's Content-Type: a body Airlock read as JSON although the client declared it otherwise. */
  contentType?: string | null;
  /** The client protocol's own headers, dropped when the body is translated and the gateway sees a Chat Completions request. */
  droppedHeaderPrefixes: readonly string[];
}

// Both builders run on every request, so each makes one pass over the headers with no intermediate
// collections; names listed in Connection (rare) are removed from the result afterwards.

export function buildUpstreamHeaders(
  clientHeaders: IncomingHttpHeaders,
  apiKey: string,
  options: UpstreamHeaderOptions,
): Record<string, string> {
  const result: Record<string, string> = {};
  let connectionValues: HeaderValue[] | null = null;
  for (const rawName of Object.keys(clientHeaders)) {
    const value = clientHeaders[rawName];
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (name === 'connection') {
      connectionValues ??= [];
      connectionValues.push(value);
    }
    if (HOP_BY_HOP.has(name) || DROPPED_REQUEST_HEADERS.has(name)) continue;
    if (name.startsWith(FORWARDED_PREFIX) || name.startsWith(AIRLOCK_PREFIX)) continue;
    if (options.droppedHeaderPrefixes.length > 0 && options.droppedHeaderPrefixes.some((prefix) => name.startsWith(prefix))) continue;
    result[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (connectionValues) removeConnectionListed(result, connectionValues);
  if (options.contentLength !== null) result['content-length'] = String(options.contentLength);
  if (options.contentType) result['content-type'] = options.contentType;
  sendWithKey(result, apiKey);
  // The proxy reads usage from the body and relays SSE as it arrives: compression would defeat both.
  result['accept-encoding'] = 'identity';
  return result;
}

/**
 * Response headers are the gateway's own minus connection framing, cookies (they would be set for
 * 127.0.0.1 and mean nothing there), `alt-svc` (it names the gateway's other endpoints, not ours),
 * Airlock's own `x-airlock-*` names, and, when Airlock rewrote the body, everything that described
 * the original bytes.
 */
const DROPPED_RESPONSE_HEADERS = new Set(['set-cookie', 'set-cookie2', 'alt-svc']);
const BODY_DESCRIBING_HEADERS = new Set(['content-length', 'content-encoding', 'content-md5', 'etag']);

/** A header (lowercase name) that describes the body's bytes as sent: untrue once they are rewritten or decoded. */
export function describesBodyBytes(name: string): boolean {
  return BODY_DESCRIBING_HEADERS.has(name);
}

export function buildClientResponseHeaders(upstream: HeaderBag, options: { bodyRewritten: boolean }): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  let connectionValues: HeaderValue[] | null = null;
  for (const rawName of Object.keys(upstream)) {
    const value = upstream[rawName];
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (name === 'connection') {
      connectionValues ??= [];
      connectionValues.push(value);
    }
    // Airlock's own names are Airlock's: a gateway's (a relay's, a chained Airlock's) would replace them on the wire.
    if (HOP_BY_HOP.has(name) || DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith(AIRLOCK_PREFIX)) continue;
    if (options.bodyRewritten && describesBodyBytes(name)) continue;
    result[name] = value;
  }
  if (connectionValues) removeConnectionListed(result, connectionValues);
  return result;
}

/**
 * Most specific first; `cf-ray` only identifies the CDN hop, so it is the last resort. LiteLLM's
 * call id (docs.litellm.ai/docs/proxy/response_headers) and OpenRouter's generation id
 * (openrouter.ai/docs/api-reference/streaming) are the ids their support asks for.
 */
const REQUEST_ID_HEADERS = [
  'x-request-id',
  'request-id',
  'x-oneapi-request-id',
  'x-litellm-call-id',
  'x-generation-id',
  'openai-request-id',
  'x-amzn-requestid',
  'cf-ray',
];
const REQUEST_ID_RANK = new Map(REQUEST_ID_HEADERS.map((name, rank) => [name, rank]));

/** The most specific non-blank request id; one pass, names compared case-insensitively. */
export function pickUpstreamRequestId(headers: HeaderBag): string | null {
  let picked: string | null = null;
  let pickedRank = REQUEST_ID_HEADERS.length;
  for (const rawName of Object.keys(headers)) {
    const rank = REQUEST_ID_RANK.get(rawName) ?? REQUEST_ID_RANK.get(rawName.toLowerCase());
    if (rank === undefined || rank >= pickedRank) continue;
    const value = headers[rawName];
    const first = (Array.isArray(value) ? value[0] : value)?.trim();
    if (first) {
      picked = first;
      pickedRank = rank;
    }
  }
  return picked;
}

/** Header names listed in Connection are hop-by-hop too (RFC 9110 section 7.6.1). */
function removeConnectionListed(headers: Record<string, unknown>, connectionValues: readonly HeaderValue[]): void {
  for (const value of connectionValues) {
    // A single value (nearly always) is not wrapped in an array of its own: this runs for most requests and answers.
    if (!Array.isArray(value)) removeListedIn(headers, value);
    else for (const line of value) removeListedIn(headers, line);
  }
}

function removeListedIn(headers: Record<string, unknown>, line: string | undefined): void {
  // Nearly every message says just `keep-alive` or `close`, which name no header.
  if (line === undefined || line === 'keep-alive' || line === 'close') return;
  const lowered = line.toLowerCase();
  if (lowered === 'keep-alive' || lowered === 'close') return;
  for (const token of lowered.split(',')) {
    const name = token.trim();
    if (name !== '' && Object.hasOwn(headers, name)) delete headers[name];
  }
}

/** One value per header, lists joined; headers that are all single values (nearly every answer's) are kept as they are. */
export function flattenHeaders(headers: Record<string, string | string[]>): Record<string, string> {
  let flat: Record<string, string> | null = null;
  for (const name in headers) {
    if (!Array.isArray(headers[name])) continue;
    flat ??= { ...(headers as Record<string, string>) };
    flat[name] = (headers[name] as string[]).join(', ');
  }
  return flat ?? (headers as Record<string, string>);
}

/** How the gateway key goes with a request (docs/gateway-spec.md: a Bearer token), also when a resend moves to another key. */
export function sendWithKey(headers: Record<string, string>, apiKey: string): void {
  headers['authorization'] = `Bearer ${apiKey}`;
}
