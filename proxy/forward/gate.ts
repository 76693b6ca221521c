import type { LocalRefusal, SpendCheckInput, SpendGate } from '../contracts/ports.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import type { StoredResponse } from '../contracts/idempotencyStore.ts';
import type { IdempotencyCache } from '../spend/idempotencyCache.ts';
import { estimateInputTokens, quickInputEstimate } from './accounting.ts';
import { claimIdempotency, sendReplay } from './idempotency.ts';
import { STOPPING } from './ownRefusals.ts';
import type { ExchangePlan } from './plan.ts';
import { STOPPED, untilStopped } from './shutdown.ts';
import { ANSWERED, secretsOf, type Gated, type Planned, type Refused } from './stageRecords.ts';

export interface GateServices {
  spendGate?: SpendGate;
  idempotency?: IdempotencyCache;
}

/**
 * The gate stage: a repeated idempotency key, then budgets, the burst guard and the auth breaker
 * (spend/). A repeat answered from its first answer costs nothing, so it is settled before any budget.
 */
export async function gate(planned: Planned, services: GateServices): Promise<Gated | Refused | typeof ANSWERED> {
  const { req, res, trace, plan, target, identity, stop } = planned;
  const claim = await claimIdempotency(services.idempotency, req, res, plan.upstreamPath, {
    profileId: target.profile.id,
    requestId: trace.requestId,
    maxWaitMs: target.profile.timeouts.totalTimeoutMs,
    stopping: stop.signal,
  });
  if (claim?.kind === 'refused') return { refusal: stop.signal.aborted ? STOPPING : claim.refusal };
  if (claim?.kind === 'replay') {
    sendReplay(res, withoutKey(claim.response, KeyMasker.forKeys(secretsOf(target))));
    trace.ended(claim.response.status, { usage: null, usageSource: null, costCredits: null });
    return ANSWERED;
  }
  const spendInput = {
    requestId: trace.requestId,
    identity,
    profile: target.profile,
    keyFromEnvironment: 'keyFromEnvironment' in target && target.keyFromEnvironment === true,
    method: planned.method,
    upstreamPath: plan.upstreamPath,
    upstreamModel: plan.upstreamModel,
  };
  const refusal = await checkSpend(services.spendGate, spendInput, plan, stop.signal);
  if (refusal) {
    claim?.ticket.abandon();
    return { refusal };
  }
  return { ...planned, firstOfKey: claim?.kind === 'first' ? claim.ticket : null };
}

/**
 * The spend gate's decision. The input is estimated only when a cap applies, and counted with the
 * tokenizer (on its thread, while this request waits) only when its upper bound would not pass the
 * caps. A request admitted on the bound holds the bound against the caps until it ends; where that
 * hold would keep out the next request of the same size, the input is counted in the background
 * and the hold lowered to the count, so parallel requests near a cap are not refused for a bound.
 */
async function checkSpend(
  gate: SpendGate | undefined,
  input: Omit<SpendCheckInput, 'estimatedInputTokens'>,
  plan: ExchangePlan,
  stopping: AbortSignal,
): Promise<LocalRefusal | null> {
  if (!gate) return null;
  if (!gate.needsInputEstimate(input.identity, input.profile)) return gate.check({ ...input, estimatedInputTokens: null });
  const quick = quickInputEstimate(plan);
  const onBound = { ...input, estimatedInputTokens: quick.tokens };
  if (!quick.countRefines) return gate.check(onBound);
  if (!gate.budgetsAdmit(onBound)) {
    // Checked only if the count arrives before the stop: a request ended by it holds nothing.
    const counted = await untilStopped(estimateInputTokens(plan), stopping);
    return counted === STOPPED ? STOPPING : gate.check({ ...input, estimatedInputTokens: counted });
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
  keyMasker.maskHeaderValues(headers);
  return { ...response, headers: headers as Record<string, string>, body: keyMasker.maskBytes(response.body) };
}
