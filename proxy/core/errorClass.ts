import type { UpstreamErrorClass } from '../contracts/errors.ts';
import {
  CONTENT_LENGTH_MISMATCH_CODE,
  HTTP_PARSER_ERROR,
  isInvalidHttpCode,
  PROXY_FAILED_GATEWAY_CODE,
  PROXY_NO_ANSWER_CODE,
  PROXY_REFUSED_CODE,
} from './errorExplanations.ts';
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
  /**
   * The request is for an API a gateway may not offer (embeddings, images, audio, rerank, files:
   * upstreamAttempts.ts isOptionalApi), not chat, Messages, Responses or the model list, which every gateway
   * Airlock is pointed at serves (docs/gateway-spec.md §4.1-4.3).
   */
  optionalApi?: boolean;
}

/** Wording gateways use for an unknown or unavailable model (OpenAI, One/New API relays, Chinese relays). */
const MODEL_MISSING =
  /model[^.\n]{0,80}?(not[ _]found|does ?n[o']t exist|not exist|not available|unavailable|no available channel|无可用渠道)|(unknown|invalid|no such|unsupported) model\b|model_not_found|模型.{0,40}(不存在|无可用)/i;
/**
 * A model the key may not use: new-api's 403 "该令牌无权访问模型" and LiteLLM's 401
 * `key_model_access_denied` (test/simulator/dialects.ts cites both). The key is fine: the model is not open to it.
 */
const MODEL_NOT_OPEN = /无权访问模型|not allowed to access model|key_model_access_denied/i;
/**
 * An empty balance or a spent budget: OpenAI's 429 `insufficient_quota`, new-api's 403
 * `insufficient_user_quota`, LiteLLM's 400 `budget_exceeded`, OpenRouter's 402 "Insufficient credits".
 * Waiting does not refill it, so it is final.
 */
const QUOTA_CODES = new Set(['insufficient_quota', 'insufficient_user_quota', 'budget_exceeded', 'insufficient_balance', 'quota_exceeded']);
const QUOTA_WORDING = /insufficient[ _](credits|balance|quota)|budget has been exceeded|额度不足|余额不足/i;
/**
 * A refusal for where the caller is: OpenAI's 403 `unsupported_country_region_territory` (home-assistant/core#120072),
 * OpenRouter's 403 "This model is not available in your region" (standardagents/dmux#43), a relay's
 * `RegionError` "not available in your country" (anomalyco/opencode#43692). The model exists and the
 * key is fine: read as a missing model, the client was told to pick another model of a list it had.
 */
/**
 * The region word stands alone: joined to other word characters by - _ . / it is part of a model or
 * deployment id (`gpt-4o-region-eu`), no refusal for where the caller is.
 */
const REGION_BLOCK =
  /not (available|supported|allowed) in your (region|country|territory|location)|(?<!\w[-./]?)(country|region|territory)(?![-./]?\w)[^.\n]{0,40}not supported|unsupported_country_region_territory|RegionError/i;
/** Codes that say the key itself was rejected, whatever the status (a 403 with one is a rejected key too). */
const INVALID_KEY_CODES = new Set(['invalid_api_key', 'token_not_found_in_db', 'invalid_token', 'authentication_error', 'unauthorized']);
/** Codes of a rate limit (OpenAI's code and type, LiteLLM's type), for an error that came without its status. */
const RATE_LIMIT_CODES = new Set(['rate_limit_exceeded', 'rate_limit_error', 'throttling_error']);

/**
 * Classifies a gateway answer by docs/gateway-spec.md §7. Choices the contract leaves open:
 * - An empty balance or spent budget is quota_exhausted at any status (402, 429, 403, 400).
 * - Status-only signals win over the rest of the body: 408/504/524 are timeouts, 429 is
 *   rate_limited, other 5xx are upstream_error even as an HTML page (a proxy in front of the
 *   gateway reporting a fault), except a JSON 503 naming a missing model (new-api's "No available
 *   channel for model"), which no wait fixes.
 * - A 413 is a body over the gateway's size limit whatever its body: nginx's `client_max_body_size`
 *   answers with an HTML page (https://nginx.org/en/docs/http/ngx_http_core_module.html#client_max_body_size),
 *   which is no sign of a wrong base URL.
 * - A 403 HTML page is a firewall in front of the gateway refusing the request (Cloudflare's "Sorry,
 *   you have been blocked" or "Access denied" pages, nginx's `deny`), not a wrong address: bad_request.
 * - A 401 is a rejected key whatever its body, an HTML page included, unless it names a model the
 *   key may not use. Only `auth` opens the circuit breaker, so a 403 is `auth` only with an
 *   invalid-key code; any other 403 is bad_request (the request is refused, the key is fine).
 * - A 404 or 405 page for an API a gateway may lack (`optionalApi`) is bad_request, the gateway having
 *   no such endpoint: a site in front of the API answers its own page for a path it does not route
 *   (OpenRouter's "Not Found | OpenRouter", and a 405 with `x-matched-path: /404` for a POST:
 *   Pasta-Devs/Marinara-Engine#22, chatboxai/chatbox#1486), where the base URL serves chat. Read as a
 *   wrong address, the client was told to change a base URL that works.
 * - Otherwise HTML where JSON was expected is html_instead_of_json at any status, and so is a 3xx
 *   (the address redirects: wrong scheme, host or path); the fix is the same, correct the base URL.
 * - A refusal for the caller's region or country is no missing model unless the gateway's code says
 *   model_not_found (REGION_BLOCK): a 403 then gets the firewall's cause and fix. A 401 stays a
 *   rejected key: gateways refuse a region with 403 (OpenAI, OpenRouter) or 400 (Gemini), not 401.
 * - A JSON 404 that does not mention a model is bad_request: the gateway has no such endpoint, so
 *   retrying cannot help and the client must change the path or the API it uses.
 * - 529 (overloaded) is upstream_error and is not retried: it is not in rule 1's list.
 */
export function classifyUpstreamResponse(input: UpstreamResponseSummary): UpstreamErrorClass | null {
  const { status, bodyText } = input;
  const html = isHtml(input.contentType, bodyText);
  const upstream = extractUpstreamError(bodyText);
  const said = upstream.message ?? (html ? '' : bodyText);
  if (status >= 400 && isQuotaAnswer(status, upstream.codes, said)) return 'quota_exhausted';
  if (status === 408 || status === 504 || status === 524) return 'timeout_total';
  if (status === 429) return 'rate_limited';
  const regionBlocked = REGION_BLOCK.test(said) || upstream.codes.some((code) => REGION_BLOCK.test(code));
  // The gateway's own code says more than its words: a region refusal overrides the wording alone.
  const mentionsMissingModel =
    upstream.code === 'model_not_found' || (!regionBlocked && (MODEL_MISSING.test(said) || MODEL_NOT_OPEN.test(said)));
  if (status >= 500) return status === 503 && upstream.message !== null && mentionsMissingModel ? 'model_not_found' : 'upstream_error';
  if (status === 401) return MODEL_NOT_OPEN.test(said) || upstream.codes.includes('key_model_access_denied') ? 'model_not_found' : 'auth';
  // A 403 page is a firewall refusing the request (Cloudflare's block pages, nginx's deny): the address is right.
  if (status === 413 || (status === 403 && html)) return 'bad_request';
  if (html && (status === 404 || status === 405) && input.optionalApi === true) return 'bad_request';
  if (html && (input.expectJson || status >= 300)) return 'html_instead_of_json';
  if (status >= 300 && status < 400) return 'html_instead_of_json';

  if (status >= 200 && status < 300) {
    // A 200 holding only an error (relays: protocols/declaredError.ts) says what it is in its codes and words alone.
    if (!isErrorOnlyBody(bodyText)) return null;
    if (isQuotaAnswer(status, upstream.codes, said)) return 'quota_exhausted';
    if (mentionsMissingModel) return 'model_not_found';
    if (upstream.codes.some((code) => INVALID_KEY_CODES.has(code))) return 'auth';
    return upstream.codes.some((code) => RATE_LIMIT_CODES.has(code)) ? 'rate_limited' : 'upstream_error';
  }
  if ((status === 400 || status === 403 || status === 404 || status === 422) && mentionsMissingModel) return 'model_not_found';
  if (status === 403 && upstream.codes.some((code) => INVALID_KEY_CODES.has(code))) return 'auth';
  return 'bad_request';
}

function isQuotaAnswer(status: number, codes: readonly string[], said: string): boolean {
  return status === 402 || codes.some((code) => QUOTA_CODES.has(code)) || QUOTA_WORDING.test(said);
}

/**
 * What the gateway said in an error answer: its error's message, else the body itself when it is
 * plain words, neither JSON nor a page (Cloudflare's `error code: 1010`, a proxy's `Forbidden`).
 * Those words were dropped, and a client got only the status's generic cause.
 */
export function upstreamErrorWords(bodyText: string, contentType: string | null): string | null {
  const message = extractUpstreamError(bodyText).message;
  if (message !== null) return message;
  const text = bodyText.trim();
  if (text === '' || isHtml(contentType, text) || parsesAsJson(text)) return null;
  return text;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function isHtml(contentType: string | null, bodyText: string): boolean {
  if (contentType !== null && /text\/html|application\/xhtml/i.test(contentType)) return true;
  const start = bodyText.trimStart().slice(0, 256).toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head') || start.startsWith('<body');
}

const TIMEOUT_CLASSES = new Set<string>(['timeout_connect', 'timeout_idle', 'timeout_total']);

const CODE_CLASSES: Record<string, UpstreamErrorClass> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout_connect',
  // Airlock's, for a proxy that never answered its CONNECT (forward/proxyFailures.ts tunnelFailure): no tunnel within the connect timeout.
  [PROXY_NO_ANSWER_CODE]: 'timeout_connect',
  ETIMEDOUT: 'timeout_connect',
  UND_ERR_HEADERS_TIMEOUT: 'timeout_idle',
  UND_ERR_BODY_TIMEOUT: 'timeout_idle',
  // The gateway answered, with headers past undici's 16 KiB: its fault, and it may have run the request; no network check helps.
  UND_ERR_HEADERS_OVERFLOW: 'upstream_error',
  // The gateway answered, with a body whose length is not its Content-Length's: invalid HTTP (errorExplanations.ts).
  [CONTENT_LENGTH_MISMATCH_CODE]: 'upstream_error',
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
    // An answer that came but cannot be decoded (forward/answerDecoding.ts): the gateway's fault, never a break to retry.
    if (link['name'] === 'AnswerDecodingError') return 'upstream_error';
    const code = link['code'];
    if (typeof code === 'string' && code in CODE_CLASSES) return CODE_CLASSES[code]!;
    // undici's HTTP parser refused the answer: the gateway answered, in no valid HTTP, and may have run the request.
    if (isInvalidHttpCode(parserFailureCode(link))) return 'upstream_error';
  }
  return 'network';
}

/** undici's words for a proxy that answered its CONNECT with other than 200 (lib/dispatcher/proxy-agent.js). */
const PROXY_ANSWER_WORDS = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;

/** The status an HTTP proxy answered Airlock's CONNECT with, when that is why the attempt failed. */
export function proxyAnswerStatus(error: unknown): number | null {
  for (const link of causeChain(error)) {
    if (!isObject(link) || link['code'] !== 'UND_ERR_ABORTED' || typeof link['message'] !== 'string') continue;
    const said = PROXY_ANSWER_WORDS.exec(link['message']);
    if (said) return Number(said[1]);
  }
  return null;
}

/** The first error code in the chain (`ENOTFOUND`, `UND_ERR_SOCKET`…), for the message and the log. */
export function networkFailureCode(error: unknown): string | null {
  const proxyStatus = proxyAnswerStatus(error);
  if (proxyStatus !== null) return proxyStatus >= 500 ? PROXY_FAILED_GATEWAY_CODE : PROXY_REFUSED_CODE;
  for (const link of causeChain(error)) {
    if (!isObject(link)) continue;
    if (typeof link['code'] === 'string') return link['code'];
    const parserCode = parserFailureCode(link);
    if (parserCode !== null) return parserCode;
  }
  return null;
}

/**
 * undici's HTTP parser error: `HPE_…`, or its name where undici 7 leaves the code unset (client-h1.js
 * looks the llhttp error number up in a table keyed by name).
 */
function parserFailureCode(link: Record<string, unknown>): string | null {
  if (typeof link['code'] === 'string') return link['code'].startsWith('HPE_') ? link['code'] : null;
  return link['name'] === HTTP_PARSER_ERROR ? HTTP_PARSER_ERROR : null;
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

/** The classes Airlock answers itself after a failed exchange; refusals carry their own status (see LocalRefusal). */
export type ExchangeFailureClass = UpstreamErrorClass | 'proxy_stopping';

/**
 * The status a client gets for a failure it should not retry is one no client retries: the
 * OpenAI and Anthropic SDKs and Claude Code retry 408, 409, 429 and 5xx (and Claude Code 401),
 * Codex 401, 429 and 5xx; and `fetch` itself (so the Node SDKs, Claude Code and the AI SDK) sends
 * a request again on a new connection after a 421 (the Fetch standard's HTTP-network-or-cache
 * fetch, which undici follows). So a missing model is 404 whatever the gateway said (new-api says
 * 503), an empty balance 402 (OpenAI says 429), and a wrong base URL 400 (the client's setup is
 * wrong: the address answered, but not as the API), never the 502 every client retries.
 */
const DEFAULT_STATUS: Record<ExchangeFailureClass, number> = {
  bad_request: 400,
  auth: 401,
  model_not_found: 404,
  quota_exhausted: 402,
  rate_limited: 429,
  upstream_error: 502,
  timeout_connect: 504,
  timeout_idle: 504,
  timeout_total: 504,
  html_instead_of_json: 400,
  stream_interrupted: 502,
  network: 502,
  proxy_stopping: 503,
};

/**
 * The status Airlock answers a failed exchange with. The upstream status is kept where it says
 * more than the class and clients treat it the same (403 vs 401 for a key, 413 vs 400, 500 vs
 * 502); the classes a client must not retry always get their own status.
 */
export function statusForClass(errorClass: ExchangeFailureClass, upstreamStatus: number | null = null): number {
  if (upstreamStatus !== null) {
    const keep =
      (errorClass === 'bad_request' && upstreamStatus >= 400 && upstreamStatus < 500 && ![408, 409, 429].includes(upstreamStatus)) ||
      (errorClass === 'auth' && (upstreamStatus === 401 || upstreamStatus === 403)) ||
      (errorClass === 'rate_limited' && upstreamStatus === 429) ||
      (errorClass === 'upstream_error' && upstreamStatus >= 500 && upstreamStatus < 600);
    if (keep) return upstreamStatus;
  }
  return DEFAULT_STATUS[errorClass];
}
