import { redactSecrets, redactsNone } from '../../core/redact.ts';
import type { RequestStartEvent as StartEvent, RequestEndEvent as EndEvent } from '../../contracts/lifecycle.ts';

/**
 * Attribute names of the OpenTelemetry GenAI semantic conventions (client inference span, semconv
 * 1.41, now kept in open-telemetry/semantic-conventions-genai). Written out here rather than
 * imported from `@opentelemetry/semantic-conventions/incubating`, which that package advises
 * against at run time: its experimental names may change in any minor release.
 * `gen_ai.provider.name` replaced `gen_ai.system` in semconv 1.37; only the new name is sent.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  reasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  /** Seconds, for streams. */
  timeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
} as const;

/** Stable general attributes (semconv registry): error.type, server.*, http.response.status_code. */
const GENERAL = {
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  httpStatus: 'http.response.status_code',
} as const;

/** Airlock's own figures, in its own namespace as the conventions ask for non-standard attributes. */
const AIRLOCK = {
  requestId: 'airlock.request_id',
  client: 'airlock.client',
  profile: 'airlock.profile',
  requestedModel: 'airlock.requested_model',
  protocol: 'airlock.client_protocol',
  retries: 'airlock.retries',
  costCredits: 'airlock.cost_credits',
  /** What the gateway said it charged, in its own unit (OpenRouter's credits, LiteLLM's USD), never Airlock's credits. */
  gatewayCost: 'airlock.gateway_cost_gateway_unit',
  usageSource: 'airlock.usage_source',
} as const;

/**
 * `gen_ai.provider.name` names the API flavour the call followed, not who hosts the model: the
 * conventions give "openai" to any service reached through the OpenAI REST API, which the gateway
 * speaks (docs/gateway-spec.md); a Messages request the gateway took natively is "anthropic".
 */
function providerNameOf(start: StartEvent): string {
  return start.protocol === 'anthropic' && start.protocolMode === 'native' ? 'anthropic' : 'openai';
}

/**
 * The operation from the path the client called: the conventions' values where one fits
 * (Chat Completions, Messages and Responses all generate a reply: `chat`), else the path itself
 * (`models`, `images.generations`), as they allow for operations they do not list.
 */
export function operationNameOf(clientPath: string): string {
  const segments = (clientPath.split('?')[0] ?? '').split('/').filter((segment) => segment !== '' && segment !== 'v1');
  const route = segments.join('/');
  if (route === 'chat/completions' || route === 'messages' || route === 'responses') return 'chat';
  if (route === 'completions') return 'text_completion';
  if (route === 'embeddings') return 'embeddings';
  return route.replaceAll('/', '.') || 'request';
}

export type SpanAttributes = Record<string, string | number | boolean>;

export interface GenAiSpanData {
  name: string;
  startTimeMs: number;
  endTimeMs: number;
  attributes: SpanAttributes;
  /** Set when the request failed: the span's status is ERROR with this description. */
  errorDescription: string | null;
}

export interface UpstreamServer {
  address: string;
  port: number;
}

/**
 * One request as a GenAI client span (the proxy is the gateway's client). No message content:
 * the conventions make it opt-in, and bodies may hold what a user's prompt pasted in.
 * `server` is the profile's gateway (its base URL's host), when known.
 */
export function genAiSpanOf(start: StartEvent, end: EndEvent, server: UpstreamServer | null): GenAiSpanData {
  const operation = operationNameOf(start.clientPath);
  const requestModel = start.upstreamModel ?? start.requestedModel;
  const attributes: SpanAttributes = {
    [GEN_AI.operationName]: operation,
    [GEN_AI.providerName]: providerNameOf(start),
    [GENERAL.httpStatus]: end.status,
    [AIRLOCK.requestId]: start.requestId,
    [AIRLOCK.protocol]: start.protocol,
    [AIRLOCK.retries]: end.retries,
  };
  const optional: Array<[string, string | number | null | undefined]> = [
    [GEN_AI.requestModel, requestModel],
    [GEN_AI.responseModel, end.responseModel],
    [GEN_AI.inputTokens, end.usage?.inputTokens],
    [GEN_AI.outputTokens, end.usage?.outputTokens],
    [GEN_AI.cacheReadInputTokens, end.usage?.cachedInputTokens],
    [GEN_AI.reasoningOutputTokens, end.usage?.reasoningTokens],
    [GEN_AI.timeToFirstChunk, start.stream && end.ttfbMs !== null ? end.ttfbMs / 1000 : null],
    [GENERAL.serverAddress, server?.address],
    [GENERAL.serverPort, server?.port],
    [AIRLOCK.client, start.clientName],
    [AIRLOCK.profile, start.profileId],
    [AIRLOCK.requestedModel, start.requestedModel !== requestModel ? start.requestedModel : null],
    [AIRLOCK.costCredits, end.costCredits],
    [AIRLOCK.gatewayCost, end.usage?.gatewayCost],
    [AIRLOCK.usageSource, end.usageSource],
  ];
  for (const [name, value] of optional) if (value !== null && value !== undefined) attributes[name] = value;
  // error.type: low-cardinality, so Airlock's error class, else the HTTP status as the HTTP conventions do.
  const failed = end.errorClass !== null || end.status >= 400;
  const errorType = end.errorClass ?? (end.status >= 400 ? String(end.status) : null);
  if (errorType !== null) attributes[GENERAL.errorType] = errorType;
  return {
    name: requestModel ? `${operation} ${requestModel}` : operation,
    startTimeMs: start.startedAtMs,
    endTimeMs: start.startedAtMs + end.durationMs,
    attributes,
    errorDescription: failed ? (end.errorClass ?? `HTTP ${end.status}`) : null,
  };
}

/**
 * The span with every text masked: model names come from clients (a key pasted into the model
 * field) and from the gateway (one that echoes what it was sent), the operation from the client's
 * path. The log and the live feed mask the same texts; a span leaves the machine.
 */
export function maskedSpan(span: GenAiSpanData, knownSecrets: string[]): GenAiSpanData {
  const texts = [span.name, ...Object.values(span.attributes).filter((value) => typeof value === 'string'), span.errorDescription ?? ''];
  // One pass over all its texts, as the log checks a row: almost no span holds a secret.
  if (redactsNone(texts, knownSecrets)) return span;
  const mask = (text: string): string => redactSecrets(text, knownSecrets);
  const attributes: SpanAttributes = {};
  for (const [name, value] of Object.entries(span.attributes)) attributes[name] = typeof value === 'string' ? mask(value) : value;
  return {
    ...span,
    name: mask(span.name),
    attributes,
    errorDescription: span.errorDescription === null ? null : mask(span.errorDescription),
  };
}

/** The gateway's host and port from a profile's base URL; null for one that does not parse. */
export function upstreamServerOf(baseUrl: string): UpstreamServer | null {
  try {
    const url = new URL(baseUrl);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return { address: url.hostname, port };
  } catch {
    return null;
  }
}
