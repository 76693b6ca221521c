import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorClass } from '../contracts/errors.ts';
import type { LocalRefusal, SpendGate } from '../contracts/ports.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import { networkFailureCode, upstreamErrorWords } from '../core/errorClass.ts';
import { StepKey } from './stepKey.ts';
import { isUnknownIssuerCode, osCaStoreTrusted } from '../core/osCaStore.ts';
import { proxyUrlOf } from './upstreamAgents.ts';
import { proxyFailureOf } from './proxyFailures.ts';
import { extractUpstreamError } from '../core/upstreamErrorBody.ts';
import { sendRefusal, type ErrorDetail } from './replies.ts';
import { streamProgressEstimate } from './accounting.ts';
import { watchExchange, type AbortReason, type ExchangeWatch } from './exchangeWatch.ts';
import { replyFailure, upstreamErrorRecord } from './failureReply.ts';
import type { FailedStep } from './fallback.ts';
import { answeredByHeader, type ExchangeStep, type FallbackRoute, type SendableStep } from './fallbackRoute.ts';
import { suggestModels } from './gatewayModels.ts';
import { buildUpstreamHeaders, headerValue } from './headers.ts';
import { retryAdviceOf } from './retryPolicy.ts';
import type { ExchangePlan } from './plan.ts';
import { relayResponse } from './relay.ts';
import type { ForwardShutdown } from './shutdown.ts';
import { isHeld, secretsOf, type HeldTarget, type RequestTarget } from './stageRecords.ts';
import type { RequestTrace } from './trace.ts';
import { sendWithRetries, type AttemptsResult } from './upstreamAttempts.ts';
import { RequestFixes, type LearnedRefusals } from './requestFixes.ts';
import type { Requester } from './gate.ts';
import { setOwnHeader } from './answerHead.ts';

/**
 * A string: an Error per request (its stack trace) cost more than the rest of the exchange's own work, and
 * one Error shared by every request would carry whatever is added to it to all of them.
 */
const NOT_RELAYED = 'the answer was not relayed';

export interface ExchangeContext {
  req: IncomingMessage;
  res: ServerResponse;
  plan: ExchangePlan;
  /** Held (every pooled key cooling): nothing is sent to it, and the request goes straight to the fallback list. */
  target: RequestTarget;
  trace: RequestTrace;
  shutdown?: ForwardShutdown;
  /**
   * A keyed image or video creation: once it may have run at the gateway, a client that leaves
   * does not end it. Its answer is kept for the repeat, which must never create a second task.
   */
  runsOnWithoutClient?: boolean;
  /** The profile's fallback list, when it has one: asked after a step failed before any byte reached the client. */
  fallback?: FallbackRoute | null;
  /** Where a model's refusals of `reasoning_effort` and `max_tokens` are kept, so that its later requests are written without them. */
  learnedRefusals?: LearnedRefusals;
  /** Asked before running a step again after runs the gateway may bill, with `requester` (gate.ts resendAdmitted). */
  spendGate?: SpendGate | undefined;
  requester?: Requester | undefined;
}

/**
 * The exchange stage: sends the request upstream (retrying per docs/gateway-spec.md §7), falls back
 * along the profile's list while a step fails before anything reached the client, and relays or
 * explains the answer. Returns the step that answered: settle prices and counts it there.
 */
export async function exchange(context: ExchangeContext): Promise<ExchangeStep> {
  const { req, trace } = context;
  const runsOn = (): boolean => context.runsOnWithoutClient === true && trace.upstreamMayHaveRun;
  // The client's whole wait: the first profile's total timeout spans every step.
  const watch = watchExchange({
    req,
    res: context.res,
    totalTimeoutMs: context.target.profile.timeouts.totalTimeoutMs,
    shutdown: context.shutdown,
    runsOnWithoutClient: runsOn,
  });
  let result: AttemptsResult | null = null;
  try {
    const own = context.target;
    // A held profile's request waits for its first fallback step; any other is its own first step.
    const first = isHeld(own) ? await firstFallbackStep(context, own, watch) : { plan: context.plan, target: own };
    if (first === null) return { plan: context.plan, target: context.target };
    let step = first;
    // What a resend changed after a 400 refused a parameter: remembered once the resend's answer confirms it.
    const fixes = new RequestFixes(trace, context.learnedRefusals);
    // Where the step's runs begin among the request's: a step fixed after a 400 is the same step, its
    // runs before the fix held by the same hold; a fallback step's own hold starts afresh.
    let stepRunsFrom = trace.attempts.unstated.length;
    for (;;) {
      const { plan, target } = step;
      if (plan.stream && plan.upstreamModel !== null) trace.estimateProgressWith(streamProgressEstimate(plan, target.profile));
      // A pooled request may be answered with any key of its pool: every one of them is masked.
      const key = new StepKey(target);
      const lease = target.keyLease;
      if (lease) trace.keyUsed(lease.current.keyId, lease.current.label);
      result = await sendWithRetries({
        url: `${target.profile.baseUrl}/${plan.upstreamPath}${plan.query}`,
        // A later step on the same pooled profile goes on with the key the request last moved to.
        headers: buildUpstreamHeaders(req.headers, key.apiKey, {
          contentLength: plan.body === null ? null : plan.byteLength,
          contentType: plan.contentType,
          droppedHeaderPrefixes: plan.droppedHeaderPrefixes,
        }),
        plan,
        profile: target.profile,
        trace,
        watch,
        key,
        clientHeaders: req.headers,
        keyLease: lease,
        spendGate: context.spendGate,
        requester: context.requester,
        stepRunsFrom,
      });
      // A resend may have gone with the profile's new key: the rest of the step goes on with it.
      if (key.target !== target) step = { plan, target: key.target };
      const fixed = fixes.fixedStep(step, result, key);
      if (fixed !== null) {
        step = fixed;
        continue;
      }
      const failure = failedStep(result, trace.upstreamMayHaveRun);
      const next = failure === null || !context.fallback ? null : await context.fallback.next(failure, step, watch);
      if (next !== null && 'bodyRefusal' in next) {
        refuseBody(context, next.bodyRefusal);
        return step;
      }
      if (next === null) {
        if (result.kind === 'answer' || result.kind === 'error') answeredBy(context, step);
        await answer(context, step, result, watch, key, runsOn());
        return step;
      }
      step = next;
      stepRunsFrom = trace.attempts.unstated.length;
    }
  } finally {
    // An answer left unread (something threw before its reader attached) must not hold its socket.
    if (result?.kind === 'answer') result.response.body.abort(NOT_RELAYED);
    watch.dispose();
  }
}

/** For a held profile, the first fallback step that takes the request (null: the held refusal was answered). */
async function firstFallbackStep(context: ExchangeContext, target: HeldTarget, watch: ExchangeWatch): Promise<SendableStep | null> {
  const { plan } = context;
  const next = context.fallback ? await context.fallback.next(target.unsent, { plan, target }, watch) : null;
  if (next !== null && !('bodyRefusal' in next)) return next;
  // Nothing was sent: the client learns that the whole pool waits, and for how long (or that its upload stalled meanwhile).
  if (next !== null) {
    refuseBody(context, next.bodyRefusal);
    return null;
  }
  const { refusal } = target.unsent;
  refuse(context.res, context.trace, plan.protocol, refusal);
  return null;
}

/** The body's own refusal ends the exchange: a contradicting body is refused again as sent; a stalled upload may go through when sent again. */
function refuseBody(context: ExchangeContext, refusal: LocalRefusal): void {
  refuse(context.res, context.trace, context.plan.protocol, refusal);
}

/** Ends the exchange with Airlock's own refusal, its row keeping the status the client got. */
function refuse(res: ServerResponse, trace: RequestTrace, protocol: ClientProtocol, refusal: LocalRefusal): void {
  const status = sendRefusal(res, protocol, refusal);
  trace.failed(refusal.errorClass, refusal.message, status);
}

function failedStep(result: AttemptsResult, mayHaveRun: boolean): FailedStep | null {
  if (result.kind === 'error') return { kind: 'status', status: result.status, errorClass: result.errorClass };
  // Every key of the pool answered 429: the profile is rate limited, which is what a fallback is for.
  if (result.kind === 'pool_exhausted') return { kind: 'status', status: result.status, errorClass: 'rate_limited' };
  if (result.kind === 'network') return { kind: 'network', errorClass: result.errorClass, mayHaveRun };
  return null;
}

/**
 * `x-airlock-answered-by: <profile>/<model>` on every answer a gateway gave, and
 * `x-airlock-fallbacks: <steps before it>` when the request fell back.
 */
function answeredBy(context: ExchangeContext, step: ExchangeStep): void {
  if (context.res.headersSent) return;
  setOwnHeader(context.res, 'x-airlock-answered-by', answeredByHeader(step));
  const chain = context.trace.fallback?.chain;
  // Steps sent before the one answering; skipped steps (with a note) were never sent.
  if (chain !== undefined)
    setOwnHeader(context.res, 'x-airlock-fallbacks', String(chain.filter((hop) => hop.note === undefined).length - 1));
}

async function answer(
  context: ExchangeContext,
  step: SendableStep,
  result: AttemptsResult,
  watch: ExchangeWatch,
  key: StepKey,
  runsOn: boolean,
): Promise<void> {
  const { res, trace } = context;
  const keyMasker = key.masker;
  const { plan, target } = step;
  const { profile } = target;
  if (result.kind === 'aborted') return replyAborted(context, step, result.reason);
  if (result.kind === 'refused') return refuseBody(context, result.refusal);
  if (result.kind === 'network') {
    return replyFailure(
      res,
      trace,
      plan.protocol,
      { errorClass: result.errorClass, upstreamStatus: null, detail: networkDetail(target, result) },
      secretsOf(target),
    );
  }
  if (result.kind === 'answer') {
    trace.answered(result.response.statusCode, {});
    await relayResponse({
      res,
      plan,
      profile,
      trace,
      response: result.response,
      contentType: result.contentType,
      upstreamRequestId: result.upstreamRequestId,
      knownSecrets: secretsOf(target),
      keyMasker,
      readsOnWithoutClient: runsOn,
      onStreamFailure: (errorClass: ErrorClass) => {
        if (errorClass === 'client_aborted' || errorClass === 'timeout_total' || errorClass === 'proxy_stopping') watch.abort(errorClass);
      },
    });
    if (trace.errorClass === null) trace.answerComplete();
    return;
  }
  const record = upstreamErrorRecord(result.headers, result.bodyText, keyMasker);
  trace.answered(result.status, record.headers);
  trace.answerBytes(record.body, keyMasker);
  trace.answerComplete();
  if (result.kind === 'pool_exhausted') {
    // The gateway's 429 is in the log; the client learns that the whole pool waits, and for how long.
    refuse(res, trace, plan.protocol, result.refusal);
    return;
  }
  const upstream = extractUpstreamError(result.bodyText);
  const said = upstreamErrorWords(result.bodyText, headerValue(result.headers, 'content-type'));
  // Passed on as sent, but never with the key: a gateway may echo what it was sent in any header.
  const advice = retryAdviceOf(result.headers);
  const masked = (value: string | null): string | null => (value === null ? null : keyMasker.maskText(value));
  // Sent after the answer came: with the key as it is then, and not at all once it was taken away (StepKey.targetNow).
  const missingModel = result.errorClass === 'model_not_found' ? plan.upstreamModel : null;
  const lookup = missingModel ? key.targetNow() : null;
  const suggestions = missingModel && lookup !== null ? await suggestModels(lookup, missingModel) : undefined;
  replyFailure(
    res,
    trace,
    plan.protocol,
    {
      errorClass: result.errorClass,
      upstreamStatus: result.status,
      retryAfter: masked(advice.retryAfter),
      retryAfterMs: masked(advice.retryAfterMs),
      refusesRetry: advice.refusesRetry,
      upstreamRequestId: result.upstreamRequestId,
      detail: {
        ...(said !== null ? { upstreamMessage: said } : {}),
        ...(upstream.code !== null ? { errorCode: upstream.code } : {}),
        ...(suggestions ? { suggestions } : {}),
        profileName: profile.name,
        baseUrl: profile.baseUrl,
        upstreamStatus: result.status,
      },
    },
    secretsOf(target),
  );
}

function networkDetail(target: SendableStep['target'], result: Extract<AttemptsResult, { kind: 'network' }>): ErrorDetail {
  const { timeouts, baseUrl } = target.profile;
  const code = networkFailureCode(result.error);
  const atProxy = proxyFailureOf(result.error, code, proxyUrlOf(baseUrl), baseUrl);
  const located = atProxy ? { upstreamMessage: atProxy.message, errorCode: atProxy.errorCode, proxyShown: atProxy.proxyShown } : null;
  if (result.errorClass === 'timeout_connect') return { timeoutMs: timeouts.connectTimeoutMs, ...located };
  if (result.errorClass === 'timeout_idle') return { timeoutMs: timeouts.idleTimeoutMs };
  if (result.errorClass === 'timeout_total') return { timeoutMs: timeouts.totalTimeoutMs };
  // Node's own words for it end in advice for Node's command line ("try running Node.js with
  // --use-system-ca"), which Airlock has already followed: the code's hint says what is left to do.
  if (isUnknownIssuerCode(code)) return { errorCode: code, osCaStoreTrusted: osCaStoreTrusted() };
  return {
    upstreamMessage: (result.error as Error).message,
    ...(code ? { errorCode: code } : {}),
    ...located,
    profileName: target.profile.name,
    baseUrl: target.profile.baseUrl,
  };
}

function replyAborted(context: ExchangeContext, step: SendableStep, reason: AbortReason): void {
  const { res, trace } = context;
  const { plan, target } = step;
  // A body sent on while it arrived: the gateway's request was stopped short with it, and never ran.
  const { arriving } = plan;
  const uploading = arriving?.uploading === true;
  if (reason === 'client_aborted') {
    const when = uploading ? 'while sending its request (the gateway was stopped before its end)' : 'before the answer was complete';
    trace.failed('client_aborted', `the client closed the connection ${when}`, 499);
    return;
  }
  // The total clock runs from the exchange's start, the upload included: what ran out is the client's upload, not the gateway.
  if (reason === 'timeout_total' && uploading) {
    const refusal = arriving.stalledAtTotalTimeout(target.profile.timeouts.totalTimeoutMs, true);
    refuse(res, trace, plan.protocol, refusal);
    return;
  }
  const detail: ErrorDetail = reason === 'timeout_total' ? { timeoutMs: target.profile.timeouts.totalTimeoutMs } : {};
  replyFailure(res, trace, plan.protocol, { errorClass: reason, upstreamStatus: null, detail }, secretsOf(target));
}
