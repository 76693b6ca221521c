import type { LocalRefusal, SpendCheckInput, SpendGate } from '../contracts/ports.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import type { StoredResponse } from '../contracts/idempotencyStore.ts';
import type { IdempotencyCache, IdempotencyTicket } from '../spend/idempotencyCache.ts';
import { estimateInputTokens, quickInputEstimate } from './accounting.ts';
import { claimIdempotency, sendReplay } from './idempotency.ts';
import { STOPPING } from './ownRefusals.ts';
import type { ExchangePlan } from './plan.ts';
import { STOPPED, untilStopped } from './shutdown.ts';
import { ANSWERED, secretsOf, type Gated, type Planned, type Refused } from './stageRecords.ts';
import type { SendableStep } from './fallbackRoute.ts';

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
    return checkBudgets(planned, services, claimed.ticket);
  });
}

function checkBudgets(planned: Planned, services: GateServices, firstOfKey: IdempotencyTicket | null): GateOutcome | Promise<GateOutcome> {
  const { trace, plan, target, identity, stop } = planned;
  const spendInput = {
    requestId: trace.requestId,
    identity,
    profile: target.profile,
    keyFromEnvironment: 'keyFromEnvironment' in target && target.keyFromEnvironment === true,
    ...('apiKey' in target ? { apiKey: target.apiKey } : {}),
    method: planned.method,
    upstreamPath: plan.upstreamPath,
    upstreamModel: plan.upstreamModel,
    routedFrom: plan.routedFrom,
    outputTokensBound: plan.outputTokensBound,
    callsBound: plan.callsBound,
    uploadAudio: plan.uploadAudio,
  };
  const refusal = checkSpend(services.spendGate, spendInput, plan, stop.signal);
  if (refusal instanceof Promise) return refusal.then((counted) => passed(planned, firstOfKey, counted));
  return passed(planned, firstOfKey, refusal);
}

function passed(planned: Planned, firstOfKey: IdempotencyTicket | null, refusal: LocalRefusal | null): Gated | Refused {
  if (refusal) {
    firstOfKey?.abandon();
    return { refusal };
  }
  return { ...planned, firstOfKey };
}

/**
 * The spend gate's decision. The input is estimated only when a cap applies, and counted with the
 * tokenizer (on its thread, while this request waits) only when its upper bound would not pass the
 * caps. A request admitted on the bound holds the bound against the caps until it ends; where that
 * hold would keep out the next request of the same size, the input is counted in the background
 * and the hold lowered to the count, so parallel requests near a cap are not refused for a bound.
 */
function checkSpend(
  gate: SpendGate | undefined,
  input: Omit<SpendCheckInput, 'estimatedInputTokens'>,
  plan: ExchangePlan,
  stopping: AbortSignal,
): LocalRefusal | null | Promise<LocalRefusal | null> {
  if (!gate) return null;
  if (!gate.needsInputEstimate(input.identity, input.profile)) return gate.check({ ...input, estimatedInputTokens: null });
  const quick = quickInputEstimate(plan);
  const onBound = { ...input, estimatedInputTokens: quick.tokens };
  if (!quick.countRefines) return gate.check(onBound);
  if (!gate.budgetsAdmit(onBound)) {
    // Checked only if the count arrives before the stop: a request ended by it holds nothing.
    return untilStopped(estimateInputTokens(plan), stopping).then((counted) =>
      counted === STOPPED ? STOPPING : gate.check({ ...input, estimatedInputTokens: counted }),
    );
  }
  const refusal = gate.check(onBound);
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

/** Asks the spend gate whether a step may run again after runs the gateway may bill (AttemptsInput.resendAdmitted). */
export type ResendCheck = (step: SendableStep, runsBefore: number) => Promise<LocalRefusal | null>;

/**
 * The spend gate's word on another run of a step: only where a cap applies to it, at the input the
 * row counts for each such run (the tokenizer's count, unstatedRuns.ts). Undefined without a gate.
 */
export function resendCheck(gated: Gated, spendGate: SpendGate | undefined): ResendCheck | undefined {
  if (spendGate?.admitResend === undefined) return undefined;
  const admitResend = spendGate.admitResend;
  return async ({ plan, target }, runsBefore) => {
    if (!spendGate.needsInputEstimate(gated.identity, target.profile)) return null;
    return admitResend(
      {
        requestId: gated.trace.requestId,
        identity: gated.identity,
        profile: target.profile,
        method: gated.method,
        upstreamPath: plan.upstreamPath,
        upstreamModel: plan.upstreamModel,
        routedFrom: plan.routedFrom,
        estimatedInputTokens: await estimateInputTokens(plan),
        outputTokensBound: plan.outputTokensBound,
        callsBound: plan.callsBound,
        uploadAudio: plan.uploadAudio,
      },
      runsBefore,
    );
  };
}
