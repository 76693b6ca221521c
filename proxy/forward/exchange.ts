import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { ErrorClass, UpstreamErrorClass } from '../contracts/errors.ts';
import { classifyNetworkFailure, classifyUpstreamResponse, networkFailureCode, statusForClass } from '../core/errorClass.ts';
import { extractUpstreamError } from '../core/upstreamErrorBody.ts';
import { buildUpstreamHeaders, pickUpstreamRequestId } from './headers.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import { decideRetry, type AttemptOutcome } from './retryPolicy.ts';
import { mayHaveExecuted, type UpstreamAttempt } from './upstreamExecution.ts';
import { idempotencyKeyOf } from '../spend/idempotencyRequest.ts';
import type { ExchangePlan } from './plan.ts';
import { relayResponse } from './relay.ts';
import { errorBodyFor, errorStatusFor, sendJson, type ErrorDetail } from './replies.ts';
import type { UpstreamTarget } from '../contracts/ports.ts';
import type { RequestTrace } from './trace.ts';
import type { ForwardShutdown } from './shutdown.ts';
import { readBody, type UpstreamBody } from './upstreamBody.ts';
import { dispatchUpstream, type UpstreamResponse } from './upstreamClient.ts';
import { suggestModels } from './gatewayModels.ts';

const ERROR_BODY_LIMIT_BYTES = 256 * 1024;
/** Made once: an Error per request (its stack trace) cost more than the rest of the exchange's own work. */
const NOT_RELAYED = new Error('the answer was not relayed');

/** Why our own AbortController fired: the client left, the total time ran out, or the proxy is stopping. */
type AbortReason = 'client_aborted' | 'timeout_total' | 'proxy_stopping';

export interface ExchangeContext {
  req: IncomingMessage;
  res: ServerResponse;
  plan: ExchangePlan;
  target: UpstreamTarget;
  trace: RequestTrace;
  shutdown?: ForwardShutdown;
  random?: () => number;
  /**
   * A keyed image or video creation: once it may have run at the gateway, a client that leaves
   * does not end it. Its answer is kept for the repeat, which must never create a second task.
   */
  runsOnWithoutClient?: boolean;
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
  const runsOn = (): boolean => context.runsOnWithoutClient === true && trace.upstreamMayHaveRun;
  const onClientClose = (): void => {
    if (!res.writableFinished && !runsOn()) abort('client_aborted');
  };
  res.on('close', onClientClose);
  // HTTP/1.1 clients never half-close while waiting for an answer: a FIN means the client left, and
  // acting on it at once (rather than at the next failed write) stops the upstream spending now.
  const socket = req.socket;
  const onClientEnd = (): void => {
    if (!runsOn()) abort('client_aborted');
  };
  socket.once('end', onClientEnd);
  // A client that left while the request waited (for a token count, say) has no 'close' to come.
  if (res.closed) abort('client_aborted');
  const onStop = (): void => abort('proxy_stopping');
  context.shutdown?.watch(onStop);
  const totalTimer = setTimeout(() => abort('timeout_total'), profile.timeouts.totalTimeoutMs);
  const url = new URL(`${profile.baseUrl}/${plan.upstreamPath}${plan.query}`);
  const headers = buildUpstreamHeaders(req.headers, target.apiKey, {
    contentLength: plan.body === null ? null : plan.byteLength,
    dropAnthropicHeaders: plan.dropAnthropicHeaders,
  });
  const fail = (errorClass: ErrorClass, upstreamStatus: number, detail: ErrorDetail): void => {
    const status = errorStatusFor(plan.protocol, errorClass, upstreamStatus);
    const body = errorBodyFor(plan.protocol, status, errorClass, { ...detail, knownSecrets: [target.apiKey] });
    trace.fail(errorClass, JSON.stringify(body));
    trace.status = status;
    sendJson(res, status, body);
  };
  const hasIdempotencyKey = idempotencyKeyOf(req.headers) !== null;
  const keyMasker = KeyMasker.for(target.apiKey);
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
  // Whether an earlier attempt may have run: a later one that certainly did not changes nothing.
  let ranBefore = false;
  const judgeAttempt = (attempt: UpstreamAttempt): boolean => {
    const mayHaveRun = mayHaveExecuted(attempt);
    trace.upstreamMayHaveRun = ranBefore || mayHaveRun;
    return mayHaveRun;
  };
  try {
    for (; ; ranBefore = trace.upstreamMayHaveRun) {
      let reachedSocket = false;
      try {
        response = await dispatchUpstream({
          url,
          method: plan.method,
          headers,
          body: plan.body,
          signal: controller.signal,
          connectTimeoutMs: profile.timeouts.connectTimeoutMs,
          idleTimeoutMs: profile.timeouts.idleTimeoutMs,
          onReachedSocket: () => {
            reachedSocket = true;
            judgeAttempt({ reachedSocket, answered: false });
          },
        });
      } catch (error) {
        if (controller.signal.aborted)
          return handleAbort(controller.signal.reason as AbortReason, fail, trace, profile.timeouts.totalTimeoutMs);
        const errorClass = classifyNetworkFailure(error);
        if (await retryAfter({ kind: 'network', errorClass, mayHaveExecuted: judgeAttempt({ reachedSocket, answered: false }) })) continue;
        if (controller.signal.aborted)
          return handleAbort(controller.signal.reason as AbortReason, fail, trace, profile.timeouts.totalTimeoutMs);
        return fail(errorClass, statusForClass(errorClass), timeoutDetail(errorClass, profile.timeouts, error));
      }
      judgeAttempt({ reachedSocket, answered: true, status: response.statusCode });
      const contentType = headerValue(response.headers, 'content-type');
      // A gateway may build its request id from what it was sent: the id is logged and shown.
      const pickedRequestId = pickUpstreamRequestId(response.headers);
      const upstreamRequestId = pickedRequestId === null ? null : keyMasker.maskText(pickedRequestId);
      const isHtml = contentType !== null && /text\/html/i.test(contentType);
      if (response.statusCode < 400 && !isHtml) {
        trace.headers(response.statusCode, upstreamRequestId);
        await relayResponse({
          res,
          plan,
          profile,
          trace,
          response,
          contentType,
          keyMasker,
          readsOnWithoutClient: runsOn(),
          onStreamFailure: (errorClass) => abortUpstream(errorClass),
        });
        trace.upstreamAnswerComplete = trace.errorClass === null;
        return;
      }
      const bodyText = await readCapped(response.body, ERROR_BODY_LIMIT_BYTES);
      const errorClass: UpstreamErrorClass =
        classifyUpstreamResponse({ status: response.statusCode, contentType, bodyText, expectJson: true }) ?? 'upstream_error';
      if (await retryAfter({ kind: 'status', status: response.statusCode, retryAfter: headerValue(response.headers, 'retry-after') }))
        continue;
      if (controller.signal.aborted)
        return handleAbort(controller.signal.reason as AbortReason, fail, trace, profile.timeouts.totalTimeoutMs);
      trace.headers(response.statusCode, upstreamRequestId);
      trace.upstreamAnswerComplete = true;
      const upstream = extractUpstreamError(bodyText);
      const suggestions =
        errorClass === 'model_not_found' && plan.upstreamModel ? await suggestModels(target, plan.upstreamModel) : undefined;
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
    context.shutdown?.unwatch(onStop);
  }

  function abortUpstream(reason: AbortReason | ErrorClass): void {
    if (reason === 'client_aborted' || reason === 'timeout_total' || reason === 'proxy_stopping') abort(reason);
  }
}

function timeoutDetail(
  errorClass: ErrorClass,
  timeouts: { connectTimeoutMs: number; idleTimeoutMs: number; totalTimeoutMs: number },
  error: unknown,
): ErrorDetail {
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
  if (reason === 'proxy_stopping') {
    fail('proxy_stopping', statusForClass('proxy_stopping'), {});
    return;
  }
  trace.fail('client_aborted', 'the client closed the connection before the answer was complete');
  trace.status = 499;
}
