import type { GatewayKeyUse } from '../../contracts/keyPool.ts';
import type { FallbackHop, StoredRequest, RequestLogRow } from '../../contracts/log.ts';
import { redactKnownSecrets } from '../../core/redact.ts';
import { FOREIGN_CREDENTIAL_HEADERS } from '../../forward/headers.ts';

/**
 * The request log as an HTTP Archive, HAR 1.2 (W3C Web Performance WG draft "HTTP Archive (HAR)
 * format", the version browsers' devtools and Charles read). Only the fields that spec requires
 * and the ones the log can fill; Airlock's own figures go in `_airlock`, as custom fields must
 * start with an underscore.
 */
export interface HarNameValue {
  name: string;
  value: string;
}

interface HarPostData {
  mimeType: string;
  text: string;
  params: HarNameValue[];
  comment?: string;
}

interface HarContent {
  size: number;
  mimeType: string;
  text?: string;
  comment?: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: HarPostData;
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: HarContent;
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  _airlock: HarAirlockFields;
}

type HarAirlockFields = Pick<
  RequestLogRow,
  | 'id'
  | 'clientName'
  | 'profileId'
  | 'protocol'
  | 'protocolMode'
  | 'requestedModel'
  | 'upstreamModel'
  | 'responseModel'
  | 'stream'
  | 'state'
  | 'errorClass'
  | 'errorMessage'
  | 'retries'
  | 'inputTokens'
  | 'outputTokens'
  | 'cachedInputTokens'
  | 'reasoningTokens'
  | 'costCredits'
  | 'usageSource'
  | 'agentSessionId'
  | 'replayOf'
> & {
  /** Every step when the request fell back (the first is where it was sent); null when it did not. */
  fallbackChain: FallbackHop[] | null;
  /** A pooled profile's key per attempt, by id and label only; null for a single key. */
  gatewayKeys: GatewayKeyUse[] | null;
  /** What the gateway said it charged, in its own unit (OpenRouter's credits, LiteLLM's USD), not credits; null when it said nothing. */
  gatewayCostGatewayUnit: number | null;
};

export interface HarLog {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
  };
}

export interface HarOptions {
  /** The proxy's own URL (http://127.0.0.1:PORT): entries name the request as the client sent it. */
  proxyUrl: string;
  /** Masked again in every text and header value: the log masked them at write, a key set since may be newer. */
  knownSecrets: string[];
}

/**
 * Headers that carry credentials never leave in an export, whatever the log kept: the gateway key
 * travels as `Authorization` or `x-api-key`, client tokens the same way, and keys for other services
 * in their own headers.
 */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'set-cookie',
  ...FOREIGN_CREDENTIAL_HEADERS,
]);

function headerList(headers: Record<string, string>, knownSecrets: string[]): HarNameValue[] {
  return Object.entries(headers)
    .filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase()))
    .map(([name, value]) => ({ name, value: redactKnownSecrets(value, knownSecrets) }));
}

function headerValue(headers: Record<string, string>, name: string): string | null {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
}

const TRUNCATED_NOTE = "cut at the log's body cap: the text is the start of the body";

/** The log keeps a stream's events as received; a non-streamed answer as its body. */
function responseContent(detail: StoredRequest, knownSecrets: string[]): HarContent {
  const bodies = detail.bodies;
  const streamed = detail.row.stream && bodies?.rawEvents != null;
  const text = streamed ? bodies.rawEvents : (bodies?.responseBody ?? null);
  const mimeType = streamed ? 'text/event-stream' : ((bodies && headerValue(bodies.responseHeaders, 'content-type')) ?? 'application/json');
  if (text === null) return { size: 0, mimeType, comment: bodies ? 'no body' : 'body not logged or removed by retention' };
  const masked = redactKnownSecrets(text, knownSecrets);
  return {
    size: Buffer.byteLength(masked),
    mimeType,
    text: masked,
    ...(!streamed && bodies?.responseTruncated ? { comment: TRUNCATED_NOTE } : {}),
  };
}

function postDataOf(detail: StoredRequest, knownSecrets: string[]): HarPostData | undefined {
  const bodies = detail.bodies;
  if (!bodies || bodies.requestBody === null) return undefined;
  return {
    mimeType: headerValue(bodies.requestHeaders, 'content-type') ?? 'application/json',
    text: redactKnownSecrets(bodies.requestBody, knownSecrets),
    params: [],
    ...(bodies.requestTruncated ? { comment: TRUNCATED_NOTE } : {}),
  };
}

/** HAR's three required timings cannot be -1: an unknown time to first byte counts as all waiting. */
function timingsOf(row: RequestLogRow): HarEntry['timings'] {
  const total = Math.max(0, row.durationMs ?? 0);
  const wait = Math.min(total, Math.max(0, row.ttfbMs ?? total));
  return { send: 0, wait, receive: total - wait };
}

function maskedOrNull(text: string | null, knownSecrets: string[]): string | null {
  return text === null ? null : redactKnownSecrets(text, knownSecrets);
}

function airlockFields(row: RequestLogRow, knownSecrets: string[]): HarAirlockFields {
  return {
    id: row.id,
    clientName: row.clientName,
    profileId: row.profileId,
    protocol: row.protocol,
    protocolMode: row.protocolMode,
    requestedModel: maskedOrNull(row.requestedModel, knownSecrets),
    upstreamModel: maskedOrNull(row.upstreamModel, knownSecrets),
    responseModel: maskedOrNull(row.responseModel, knownSecrets),
    stream: row.stream,
    state: row.state,
    errorClass: row.errorClass,
    errorMessage: maskedOrNull(row.errorMessage, knownSecrets),
    retries: row.retries,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cachedInputTokens: row.cachedInputTokens,
    reasoningTokens: row.reasoningTokens,
    costCredits: row.costCredits,
    usageSource: row.usageSource,
    agentSessionId: row.agentSessionId,
    replayOf: row.replayOf,
    fallbackChain: row.fallbackChain?.map((hop) => maskedHop(hop, knownSecrets)) ?? null,
    gatewayKeys: row.gatewayKeys?.map((use) => ({ ...use, label: redactKnownSecrets(use.label, knownSecrets) })) ?? null,
    gatewayCostGatewayUnit: row.gatewayCost ?? null,
  };
}

/** Models and notes come from clients, gateways and the user's config: masked again, like the error message. */
function maskedHop(hop: FallbackHop, knownSecrets: string[]): FallbackHop {
  return {
    ...hop,
    model: maskedOrNull(hop.model, knownSecrets),
    ...(hop.note === undefined ? {} : { note: redactKnownSecrets(hop.note, knownSecrets) }),
  };
}

/**
 * The URL the client called on the proxy. Joined as text, not resolved: a logged path such as
 * `//host/x` must stay a path on the proxy; one no URL can hold falls back to the proxy's own URL.
 */
function requestUrlOf(proxyUrl: string, clientPath: string): URL {
  try {
    return new URL(`${proxyUrl}${clientPath.startsWith('/') ? '' : '/'}${clientPath}`);
  } catch {
    return new URL(proxyUrl);
  }
}

/** One logged request as a HAR entry: what the client sent to Airlock and what it got back. */
export function harEntryOf(detail: StoredRequest, options: HarOptions): HarEntry {
  const { row, bodies } = detail;
  // Clients put keys in queries too (`?key=`): the path is masked like every text.
  const url = requestUrlOf(options.proxyUrl, redactKnownSecrets(row.clientPath, options.knownSecrets));
  const postData = postDataOf(detail, options.knownSecrets);
  const content = responseContent(detail, options.knownSecrets);
  const timings = timingsOf(row);
  return {
    startedDateTime: new Date(row.startedAtMs).toISOString(),
    time: timings.send + timings.wait + timings.receive,
    request: {
      method: row.method,
      url: url.href,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(bodies?.requestHeaders ?? {}, options.knownSecrets),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(postData ? { postData } : {}),
      headersSize: -1,
      bodySize: postData ? Buffer.byteLength(postData.text) : 0,
    },
    response: {
      // HAR has no "no response": 0 is what browsers record for a request that never got one.
      status: row.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(bodies?.responseHeaders ?? {}, options.knownSecrets),
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: content.size,
    },
    cache: {},
    timings,
    ...(row.state === 'in_flight' ? { comment: 'still running when exported' } : {}),
    ...(row.state === 'interrupted' ? { comment: 'Airlock stopped before the request ended' } : {}),
    _airlock: airlockFields(row, options.knownSecrets),
  };
}

export function harLogOf(entries: HarEntry[], airlockVersion: string): HarLog {
  return { log: { version: '1.2', creator: { name: 'Airlock', version: airlockVersion }, entries } };
}
