import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { ErrorClass, UpstreamErrorClass } from '../contracts/errors.ts';
import { classifyNetworkFailure, classifyUpstreamResponse, networkFailureCode, statusForClass } from '../core/errorClass.ts';
import { extractUpstreamError } from '../core/upstreamErrorBody.ts';
import { buildUpstreamHeaders, pickUpstreamRequestId } from '../core/headers.ts';
import { decideRetry, type AttemptOutcome } from '../core/retryPolicy.ts';
import { idempotencyKeyOf } from '../budget/idempotencyRequest.ts';
import type { ExchangePlan } from './plan.ts';
import { relayResponse } from './relay.ts';
import { errorBodyFor, sendJson, type ErrorDetail } from './replies.ts';
import type { UpstreamTarget } from './services.ts';
import type { RequestTrace } from './trace.ts';
import { readBody, type UpstreamBody } from './upstreamBody.ts';
import { dispatchUpstream, type UpstreamResponse } from './upstreamClient.ts';
import { suggestModels } from './gatewayModels.ts';
import { anthropicStatusFor } from '../translate/anthropic/errors.ts';

const ERROR_BODY_LIMIT_BYTES = 256 * 1024;
/** Made once: an Error per request (its stack trace) cost more than the rest of the exchange's own work. */
const NOT_RELAYED = new Error('the answer was not relayed');

/** Why our own AbortController fired: the client left, or the total time ran out. */
type AbortReason = 'client_aborted' | 'timeout_total';

export interface ExchangeContext {
  req: IncomingMessage;
  res: ServerResponse;
  plan: ExchangePlan;
  target: UpstreamTarget;
  trace: RequestTrace;
  random?: () => number;
}

async function readCapped(body: UpstreamBody, limitBytes: number): Promise<string> {
  const chunks = await readBody(body, { keepBytes: limitBytes, maxBytes: Number.POSITIVE_INFINITY });
  return Buffer.concat(chunks).subarray(0, limitBytes).toString('utf8');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

/** Sends the request upstream (retrying per docs/gateway-spec.md §7) and relays the answer. */
export async function runExchange(context: ExchangeContext): Promise<void> {
  const { req, res, plan, target, trace } = context;
  const { profile } = target;
  const controller = new AbortController();
  const abort = (reason: AbortReason): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onClientClose = (): void => {
    if (!res.writableFinished) abort('client_aborted');
  };
  res.on('close', onClientClose);
  // HTTP/1.1 clients never half-close while waiting for an answer: a FIN means the client left, and
  // acting on it at once (rather than at the next failed write) stops the upstream spending now.
  const socket = req.socket;
  const onClientEnd = (): void => abort('client_aborted');
  socket.once('end', onClientEnd);
  // A client that left while the request waited (for a token count, say) has no 'close' to come.
  if (res.closed) abort('client_aborted');
  const totalTimer = setTimeout(() => abort('timeout_total'), profile.timeouts.totalTimeoutMs);
  const url = new URL(`${profile.baseUrl}/${plan.upstreamPath}${plan.query}`);
  const headers = buildUpstreamHeaders(req.headers, target.apiKey, {
    contentLength: plan.body === null ? null : plan.byteLength,
    dropAnthropicHeaders: plan.dropAnthropicHeaders,
  });
  const fail = (errorClass: ErrorClass, upstreamStatus: number, detail: ErrorDetail): void => {
    const status = plan.protocol === 'anthropic' ? anthropicStatusFor(errorClass, upstreamStatus) : upstreamStatus;
    const body = errorBodyFor(plan.protocol, status, errorClass, { ...detail, knownSecrets: [target.apiKey] });
    trace.fail(errorClass, JSON.stringify(body));
    trace.status = status;
    sendJson(res, status, body);
  };
  const hasIdempotencyKey = idempotencyKeyOf(req.headers) !== null;
  /** docs/gateway-spec.md §7: decides, and waits out the backoff; false when the answer goes to the client. */
  const retryAfter = async (outcome: AttemptOutcome): Promise<boolean> => {
    const decision = decideRetry({
      retriesSoFar: trace.retries,
      method: plan.method,
      upstreamPath: plan.upstreamPath,
      outcome,
      bytesSentToClient: false,
      hasIdempotencyKey,
      policy: profile.retry,
      random: context.random ?? Math.random,
      nowMs: Date.now(),
    });
    return decision.retry && (await waitForRetry(decision.delayMs, controller.signal, trace));
  };
  let response: UpstreamResponse | null = null;
  try {
    for (;;) {
      try {
        response = await dispatchUpstream({
          url,
          method: plan.method,
          headers,
          body: plan.body,
          signal: controller.signal,
          connectTimeoutMs: profile.timeouts.connectTimeoutMs,
          idleTimeoutMs: profile.timeouts.idleTimeoutMs,
        });
      } catch (error) {
        if (controller.signal.aborted) return handleAbort(controller.signal.reason as AbortReason, fail, trace, profile.timeouts.totalTimeoutMs);
        const errorClass = classifyNetworkFailure(error);
        if (await retryAfter({ kind: 'network', errorClass, requestSent: errorClass !== 'timeout_connect' && !isConnectFailure(error) })) continue;
        if (controller.signal.aborted) return handleAbort(controller.signal.reason as AbortReason, fail, trace, profile.timeouts.totalTimeoutMs);
        return fail(errorClass, statusForClass(errorClass), timeoutDetail(errorClass, profile.timeouts, error));
      }
      const contentType = headerValue(response.headers, 'content-type');
      const upstreamRequestId = pickUpstreamRequestId(response.headers);
      const isHtml = contentType !== null && /text\/html/i.test(contentType);
      if (response.statusCode < 400 && !isHtml) {
        trace.headers(response.statusCode, upstreamRequestId);
        return await relayResponse({ res, plan, profile, trace, response, contentType, onStreamFailure: (errorClass) => abortUpstream(errorClass) });
      }
      const bodyText = await readCapped(response.body, ERROR_BODY_LIMIT_BYTES);
      const errorClass: UpstreamErrorClass =
        classifyUpstreamResponse({ status: response.statusCode, contentType, bodyText, expectJson: true }) ?? 'upstream_error';
      if (await retryAfter({ kind: 'status', status: response.statusCode, retryAfter: headerValue(response.headers, 'retry-after') })) continue;
      if (controller.signal.aborted) return handleAbort(controller.signal.reason as AbortReason, fail, trace, profile.timeouts.totalTimeoutMs);
      trace.headers(response.statusCode, upstreamRequestId);
      const upstream = extractUpstreamError(bodyText);
      const suggestions = errorClass === 'model_not_found' && plan.upstreamModel ? await suggestModels(target, plan.upstreamModel) : undefined;
      const status = errorClass === 'html_instead_of_json' ? statusForClass(errorClass) : response.statusCode;
      return fail(errorClass, status, {
        ...(upstream.message !== null ? { upstreamMessage: upstream.message } : {}),
        ...(upstream.code !== null ? { upstreamCode: upstream.code } : {}),
        ...(suggestions ? { suggestions } : {}),
        profileName: profile.name,
        upstreamStatus: response.statusCode,
      });
    }
  } finally {
    // An answer left unread (something threw before its reader attached) must not hold its socket.
    response?.body.abort(NOT_RELAYED);
    clearTimeout(totalTimer);
    res.off('close', onClientClose);
    socket.off('end', onClientEnd);
  }

  function abortUpstream(reason: AbortReason | ErrorClass): void {
    if (reason === 'client_aborted' || reason === 'timeout_total') abort(reason);
  }
}

function isConnectFailure(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT') return true;
  }
  return false;
}

function timeoutDetail(errorClass: ErrorClass, timeouts: { connectTimeoutMs: number; idleTimeoutMs: number; totalTimeoutMs: number }, error: unknown): ErrorDetail {
  if (errorClass === 'timeout_connect') return { timeoutMs: timeouts.connectTimeoutMs };
  if (errorClass === 'timeout_idle') return { timeoutMs: timeouts.idleTimeoutMs };
  if (errorClass === 'timeout_total') return { timeoutMs: timeouts.totalTimeoutMs };
  const code = networkFailureCode(error);
  return { upstreamMessage: (error as Error).message, ...(code ? { upstreamCode: code } : {}) };
}

async function waitForRetry(delayMs: number, signal: AbortSignal, trace: RequestTrace): Promise<boolean> {
  try {
    await delay(delayMs, undefined, { signal });
  } catch {
    return false;
  }
  trace.retries += 1;
  return true;
}

function handleAbort(
  reason: AbortReason,
  fail: (errorClass: ErrorClass, status: number, detail: ErrorDetail) => void,
  trace: RequestTrace,
  totalTimeoutMs: number,
): void {
  if (reason === 'timeout_total') {
    fail('timeout_total', statusForClass('timeout_total'), { timeoutMs: totalTimeoutMs });
    return;
  }
  trace.fail('client_aborted', 'the client closed the connection before the answer was complete');
  trace.status = 499;
}
