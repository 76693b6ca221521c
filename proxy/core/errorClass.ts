import type { ErrorClass, UpstreamErrorClass } from '../contracts/errors.ts';
import { extractUpstreamError, isErrorOnlyBody } from './upstreamErrorBody.ts';

export { explainError } from './errorExplanations.ts';
export { buildClientError } from './clientError.ts';
export type { ClientErrorDetail } from './clientError.ts';

export interface UpstreamResponseSummary {
  status: number;
  contentType: string | null;
  /** The body (or its start) for errors; '' when the body is not read. */
  bodyText: string;
  /** The client asked for JSON or SSE, not for a page or a file. */
  expectJson: boolean;
}

/** Wording gateways use for an unknown or unavailable model (OpenAI, One/New API relays, Chinese relays). */
const MODEL_MISSING =
  /model[^.\n]{0,80}?(not[ _]found|does ?n[o']t exist|not exist|not available|unavailable|no available channel|无可用渠道)|(unknown|invalid|no such|unsupported) model\b|model_not_found|模型.{0,40}(不存在|无可用)/i;

/**
 * Classifies a gateway answer by docs/gateway-spec.md §7. Choices the contract leaves open:
 * - Status-only signals win over the body: 408/504/524 are timeouts, 429 is rate_limited, other
 *   5xx are upstream_error even as an HTML page (a proxy in front of the gateway reporting a fault).
 * - Otherwise HTML where JSON was expected is html_instead_of_json at any status, and so is a 3xx
 *   (the address redirects: wrong scheme, host or path); the fix is the same, correct the base URL.
 * - A JSON 404 that does not mention a model is bad_request: the gateway has no such endpoint, so
 *   retrying cannot help and the client must change the path or the API it uses.
 * - 402 (balance) is rate_limited, the contract's "balance or quota insufficient".
 * - 529 (overloaded) is upstream_error and is not retried: it is not in rule 1's list.
 */
export function classifyUpstreamResponse(input: UpstreamResponseSummary): UpstreamErrorClass | null {
  const { status, bodyText } = input;
  const html = isHtml(input.contentType, bodyText);
  if (status === 408 || status === 504 || status === 524) return 'timeout_total';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'upstream_error';
  if (html && (input.expectJson || status >= 300)) return 'html_instead_of_json';
  if (status >= 300 && status < 400) return 'html_instead_of_json';

  const upstream = extractUpstreamError(bodyText);
  const mentionsMissingModel = upstream.code === 'model_not_found' || MODEL_MISSING.test(upstream.message ?? bodyText);
  if (status >= 200 && status < 300) {
    if (!isErrorOnlyBody(bodyText)) return null;
    if (mentionsMissingModel) return 'model_not_found';
    return upstream.code === 'invalid_api_key' ? 'auth' : 'upstream_error';
  }
  if (status === 401) return 'auth';
  if (status === 402) return 'rate_limited';
  if ((status === 400 || status === 403 || status === 404 || status === 422) && mentionsMissingModel) return 'model_not_found';
  if (status === 403) return 'auth';
  return 'bad_request';
}

export function isHtml(contentType: string | null, bodyText: string): boolean {
  if (contentType !== null && /text\/html|application\/xhtml/i.test(contentType)) return true;
  const start = bodyText.trimStart().slice(0, 256).toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head') || start.startsWith('<body');
}

const TIMEOUT_CLASSES = new Set<string>(['timeout_connect', 'timeout_idle', 'timeout_total']);

const CODE_CLASSES: Record<string, UpstreamErrorClass> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout_connect',
  ETIMEDOUT: 'timeout_connect',
  UND_ERR_HEADERS_TIMEOUT: 'timeout_idle',
  UND_ERR_BODY_TIMEOUT: 'timeout_idle',
};

/**
 * Classifies a thrown fetch/undici failure, looking through `cause` chains (undici wraps the socket
 * error). The pipeline aborts with a timeout class as the reason, so that reason names the class.
 * Anything else that broke the exchange (refused, reset, DNS, TLS) is `network`.
 */
export function classifyNetworkFailure(error: unknown): UpstreamErrorClass {
  for (const link of causeChain(error)) {
    if (typeof link === 'string' && TIMEOUT_CLASSES.has(link)) return link as UpstreamErrorClass;
    if (!isObject(link)) continue;
    const reason = link['reason'];
    if (typeof reason === 'string' && TIMEOUT_CLASSES.has(reason)) return reason as UpstreamErrorClass;
    if (link['name'] === 'TimeoutError') return 'timeout_total';
    const code = link['code'];
    if (typeof code === 'string' && code in CODE_CLASSES) return CODE_CLASSES[code]!;
  }
  return 'network';
}

/** The first error code in the chain (`ENOTFOUND`, `UND_ERR_SOCKET`…), for the message and the log. */
export function networkFailureCode(error: unknown): string | null {
  for (const link of causeChain(error)) {
    if (isObject(link) && typeof link['code'] === 'string') return link['code'];
  }
  return null;
}

const MAX_CAUSE_DEPTH = 8;

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let link = error; link !== undefined && link !== null && chain.length < MAX_CAUSE_DEPTH; ) {
    if (chain.includes(link)) break;
    chain.push(link);
    link = isObject(link) ? link['cause'] : undefined;
  }
  return chain;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

const DEFAULT_STATUS: Record<ErrorClass, number> = {
  bad_request: 400,
  auth: 401,
  model_not_found: 404,
  rate_limited: 429,
  upstream_error: 502,
  timeout_connect: 504,
  timeout_idle: 504,
  timeout_total: 504,
  html_instead_of_json: 502,
  stream_interrupted: 502,
  network: 502,
  client_unauthorized: 401,
  forbidden: 403,
  // 401, not 5xx: SDKs retry 5xx, and a missing key is fixed by configuration, not by waiting.
  no_key: 401,
  invalid_request: 400,
  request_too_large: 413,
  // 402, not 429: SDKs retry 429 and a budget does not refill in seconds.
  budget_exceeded: 402,
  client_paused: 403,
  circuit_open: 401,
  proxy_paused: 503,
  client_aborted: 499,
  unsupported: 400,
  translation_unavailable: 503,
  proxy_stopping: 503,
  // 507 Insufficient Storage: the spend could not be stored, which is what the user must fix.
  ledger_incomplete: 507,
};

/**
 * The status Airlock answers with. The upstream status is kept where it says more than the
 * class (403 vs 401, 413 vs 400, 402 vs 429, 500 vs 502); timeouts and broken exchanges always map
 * to 504/502 because the client never got a real gateway answer.
 */
export function statusForClass(errorClass: ErrorClass, upstreamStatus: number | null = null): number {
  if (upstreamStatus !== null) {
    const keep =
      (errorClass === 'bad_request' && upstreamStatus >= 400 && upstreamStatus < 500) ||
      (errorClass === 'auth' && (upstreamStatus === 401 || upstreamStatus === 403)) ||
      (errorClass === 'rate_limited' && (upstreamStatus === 402 || upstreamStatus === 429)) ||
      (errorClass === 'upstream_error' && upstreamStatus >= 500 && upstreamStatus < 600);
    if (keep) return upstreamStatus;
  }
  return DEFAULT_STATUS[errorClass];
}
