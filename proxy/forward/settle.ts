import type { SpendGate } from '../contracts/ports.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import { accountFor } from './accounting.ts';
import type { ExchangeStep } from './fallbackRoute.ts';
import { settleIdempotency } from './idempotency.ts';
import { isHeld, secretsOf, type Gated } from './stageRecords.ts';
import type { TraceAccounting } from './traceShapes.ts';

/**
 * The settle stage, after the exchange whatever its outcome: a keyed creation's answer kept for its
 * repeat, usage and cost, the trace's end (the log's row), and the outcome the spend gate counts.
 * Usage is priced, and spend counted, on the step that answered (a fallback's profile and model).
 */
export function settle(gated: Gated, answered: ExchangeStep, spendGate: SpendGate | undefined): Promise<void> | undefined {
  const { trace } = gated;
  const { plan, target } = answered;
  if (gated.firstOfKey) settleIdempotency(gated.firstOfKey, trace, KeyMasker.forKeys(secretsOf(target)));
  const accounting = accountFor(trace, plan, target.profile);
  // Only an estimate waits: a reported usage ends the request's row at once.
  if (accounting instanceof Promise) return accounting.then((estimated) => end(gated, answered, spendGate, estimated));
  end(gated, answered, spendGate, accounting);
  return undefined;
}

function end(gated: Gated, answered: ExchangeStep, spendGate: SpendGate | undefined, accounting: TraceAccounting): void {
  const { trace, identity } = gated;
  const { target } = answered;
  trace.ended(trace.status, accounting);
  spendGate?.recordOutcome({
    requestId: trace.requestId,
    identity,
    profileId: target.profile.id,
    // The gateway's status, not the client's: the auth breaker names it to every client after (a Codex client got a 400).
    status: trace.gatewayStatus ?? trace.status,
    // Only a rejected key opens the auth breaker: a model not open to it, or an empty balance, say nothing of the key.
    // A pool's keys each have their own breaker (spend/keyPool.ts): one bad key must not stop the profile.
    // An error inside a 200 never does: it may speak of the relay's own upstream key, and no client retries a 200.
    keyRejected: trace.errorClass === 'auth' && trace.successFailure !== 'declared' && !isHeld(target) && target.keyLease === undefined,
    ...(isHeld(target) ? {} : { apiKey: target.apiKey }),
    costCredits: accounting.costCredits,
    ...(accounting.leftSpend ? { leftSpend: accounting.leftSpend } : {}),
    startedAtMs: trace.startedAtMs,
    atMs: Date.now(),
  });
}
