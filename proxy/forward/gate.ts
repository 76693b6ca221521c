import type { ClientIdentity, LocalRefusal, SpendCheckInput, SpendGate } from '../contracts/ports.ts';
import type { Profile } from '../contracts/profile.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import type { StoredResponse } from '../contracts/idempotencyStore.ts';
import type { IdempotencyCache, IdempotencyTicket } from '../spend/idempotencyCache.ts';
import { estimateInputTokens, planCacheWrites, quickInputBound, quickInputEstimate } from './accounting.ts';
import { claimIdempotency, sendReplay } from './idempotency.ts';
import { STOPPING } from './ownRefusals.ts';
import { routeFor } from '../protocols/registry.ts';
import { UNPRICED_MODEL_CODE } from '../spend/budgetDecision.ts';
import { cachedGatewayModels } from './gatewayModels.ts';
import { closestModelIds } from './modelSuggestions.ts';
import { didYouMean } from '../core/clientError.ts';
import type { ExchangePlan } from './plan.ts';
import { STOPPED, untilStopped } from './shutdown.ts';
import { ANSWERED, secretsOf, type Gated, type Planned, type Refused } from './stageRecords.ts';

export interface GateServices {
  spendGate?: SpendGate;
  idempotency?: IdempotencyCache;
}

type GateOutcome = Gated | Refused | typeof ANSWERED;

/**
 * The gate stage: a repeated idempotency key, then budgets, the burst guard and the auth breaker
 * (spend/). A repeat answered from its first answer costs nothing, so it is settled before any budget.
 * Only a keyed creation's claim, or a token count near a cap, waits: any other request passes or
 * is refused at once, without a turn of the event loop's queue.
 */
export function gate(planned: Planned, services: GateServices): GateOutcome | Promise<GateOutcome> {
  const { req, res, trace, plan, target, stop } = planned;
  const claim = claimIdempotency(services.idempotency, req, res, plan.upstreamPath, {
    profileId: target.profile.id,
    requestId: trace.requestId,
    maxWaitMs: target.profile.timeouts.totalTimeoutMs,
    stopping: stop.signal,
    body: plan.body,
  });
  if (claim === null) return checkBudgets(planned, services, null);
  return claim.then((claimed): GateOutcome | Promise<GateOutcome> => {
    if (claimed.kind === 'refused') return { refusal: stop.signal.aborted ? STOPPING : claimed.refusal };
    if (claimed.kind === 'replay') {
      sendReplay(res, withoutKey(claimed.response, KeyMasker.forKeys(secretsOf(target))));
      trace.ended(claimed.response.status, { usage: null, usageSource: null, costCredits: null });
      return ANSWERED;
    }
    // Its answer is kept for a repeat: whole, up to what the cache keeps, not cut at the log's limit.
    if (services.idempotency) trace.keepsWholeAnswerUpTo(services.idempotency.options.maxBodyBytes);
    return checkBudgets(planned, services, claimed.ticket);
  });
}

function checkBudgets(planned: Planned, services: GateServices, firstOfKey: IdempotencyTicket | null): GateOutcome | Promise<GateOutcome> {
  const { trace, plan, target, stop } = planned;
  const { spendGate } = services;
  if (!spendGate) return passed(planned, firstOfKey, null);
  // The one object a request without caps makes here: the gate keeps it as it is until the request ends.
  const keyFromEnvironment = 'keyFromEnvironment' in target && target.keyFromEnvironment === true;
  const spendInput = spendCheckInput(trace.requestId, planned, target.profile, plan, null, keyFromEnvironment);
  const apiKey = 'apiKey' in target ? target.apiKey : undefined;
  const refusal = checkSpend(spendGate, spendInput, apiKey, plan, stop.signal);
  if (refusal instanceof Promise) return refusal.then((counted) => passed(planned, firstOfKey, counted));
  return passed(planned, firstOfKey, refusal);
}

function passed(planned: Planned, firstOfKey: IdempotencyTicket | null, refusal: LocalRefusal | null): Gated | Refused {
  if (refusal) {
    firstOfKey?.abandon();
    return { refusal: refusal.code === UNPRICED_MODEL_CODE ? withModelHint(refusal, planned) : refusal };
  }
  return { ...planned, firstOfKey };
}

/**
 * A model refused for having no price may be a typo: where the gateway's list (as last fetched, never
 * fetched for this) lacks it, the refusal names the closest ids it holds, as a model-not-found answer does.
 */
function withModelHint(refusal: LocalRefusal, planned: Planned): LocalRefusal {
  const model = planned.plan.upstreamModel;
  const listed = cachedGatewayModels(planned.target.profile)?.ids;
  if (model === null || listed === undefined || listed.includes(model)) return refusal;
  const closest = closestModelIds(model, listed);
  // Worded as a model-not-found answer words it, so a typo reads the same refused here or there.
  const hint = closest.length === 0 ? '' : ` ${didYouMean(closest)}`;
  return { ...refusal, message: `${refusal.message} The gateway's model list has no ${JSON.stringify(model)}.${hint}` };
}

/**
 * The spend gate's decision. The input is estimated only when a cap applies, and counted with the
 * tokenizer (on its thread, while this request waits) only when its upper bound would not pass the
 * caps. A request admitted on the bound holds the bound against the caps until it ends; where that
 * hold would keep out the next request of the same size, the input is counted in the background
 * and the hold lowered to the count, so parallel requests near a cap are not refused for a bound.
 */
function checkSpend(
  gate: SpendGate,
  input: SpendCheckInput,
  apiKey: string | undefined,
  plan: ExchangePlan,
  stopping: AbortSignal,
): LocalRefusal | null | Promise<LocalRefusal | null> {
  if (!gate.needsInputEstimate(input.identity, input.profile)) return gate.check(input, apiKey);
  const quick = quickInputEstimate(plan);
  const onBound = { ...input, estimatedInputTokens: quick.tokens };
  if (!quick.countRefines) return gate.check(onBound, apiKey);
  if (!gate.budgetsAdmit(onBound)) {
    // Checked only if the count arrives before the stop: a request ended by it holds nothing.
    return untilStopped(estimateInputTokens(plan), stopping).then((counted) =>
      counted === STOPPED ? STOPPING : gate.check({ ...input, estimatedInputTokens: counted }, apiKey),
    );
  }
  const refusal = gate.check(onBound, apiKey);
  if (refusal === null && !gate.budgetsAdmit(onBound)) {
    // The estimator falls back to bytes rather than fail; a failure here would only leave the bound held.
    void estimateInputTokens(plan).then(
      (tokens) => gate.refineHold({ ...input, estimatedInputTokens: tokens }),
      () => undefined,
    );
  }
  return refusal;
}

/** A replay is what the first client received: the key masked as the relay masked it. */
function withoutKey(response: StoredResponse, keyMasker: KeyMasker): StoredResponse {
  const headers: Record<string, string | string[]> = { ...response.headers };
  keyMasker.maskHeaders(headers);
  return { ...response, headers: headers as Record<string, string>, body: keyMasker.maskBytes(response.body) };
}

/** Who sent a request, as the gate admitted it: the Gated record itself is passed, so nothing is made for it. */
export interface Requester {
  readonly identity: ClientIdentity;
  readonly method: string;
}

/** What a resend check reads: fields of the attempts' own input (upstreamAttempts.ts AttemptsInput). */
export interface ResendAsk {
  spendGate?: SpendGate | undefined;
  requester?: Requester | undefined;
  plan: ExchangePlan;
  profile: Profile;
  trace: { readonly requestId: string };
}

/**
 * The spend gate's word on another run of a step after `runsBefore` runs the gateway may bill: only
 * where a cap applies to it, at the input the row counts for each such run (the tokenizer's count,
 * unstatedRuns.ts). A plain function of the attempts' input, so a request without caps makes no
 * closure for it.
 */
export async function resendAdmitted(ask: ResendAsk, runsBefore: number): Promise<LocalRefusal | null> {
  const { spendGate, requester, plan } = ask;
  if (spendGate?.admitResend === undefined || requester === undefined) return null;
  // The caps as they are when the resend goes: the user may have lowered or set them while the request ran.
  const profile = spendGate.withCapsNow?.(ask.profile) ?? ask.profile;
  if (!spendGate.needsInputEstimate(requester.identity, profile)) return null;
  return spendGate.admitResend(spendCheckInput(ask.trace.requestId, requester, profile, plan, await estimateInputTokens(plan)), runsBefore);
}

/** A model's request the gateway bills: a POST naming a model, not a token count (which runs none and costs nothing). */
function runsModel(plan: ExchangePlan): boolean {
  return (
    plan.upstreamModel !== null && plan.method.toUpperCase() === 'POST' && routeFor(plan.upstreamPath, plan.method).endpoint !== 'count'
  );
}

/**
 * What the spend gate reads of a request sent with `plan` to `profile`, in one shape wherever it asks
 * (admission, a fallback step, a resend): the plan itself is the source of a cheap input bound, should
 * a cap set while the request runs ask for one.
 */
export function spendCheckInput(
  requestId: string,
  requester: Requester,
  profile: Profile,
  plan: ExchangePlan,
  estimatedInputTokens: number | null,
  keyFromEnvironment = false,
): SpendCheckInput {
  return {
    requestId,
    identity: requester.identity,
    profile,
    keyFromEnvironment,
    method: requester.method,
    upstreamPath: plan.upstreamPath,
    upstreamModel: plan.upstreamModel,
    routedFrom: plan.routedFrom,
    runsModel: runsModel(plan),
    estimatedInputTokens,
    outputTokensBound: plan.outputTokensBound,
    callsBound: plan.callsBound,
    uploadAudio: plan.uploadAudio,
    billedUnits: plan.billedUnits,
    inputSource: plan,
    inputBoundOf: quickInputBound,
    cacheWritesOf: planCacheWrites,
  };
}
