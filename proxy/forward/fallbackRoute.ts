import type { IncomingHttpHeaders } from 'node:http';
import type { LocalErrorClass } from '../contracts/errors.ts';
import type { FallbackHop } from '../contracts/log.ts';
import { isLocalRefusal, type LocalRefusal, type SpendGate, type TargetResolver, type UpstreamTarget } from '../contracts/ports.ts';
import type { FallbackEntry } from '../contracts/profile.ts';
import { idempotencyKeyOf } from '../spend/idempotencyRequest.ts';
import { quickInputEstimate } from './accounting.ts';
import { spendCheckInput } from './gate.ts';
import { decideFallback, type FailedStep } from './fallback.ts';
import type { ExchangePlan } from './plan.ts';
import { buildPlan, type NativeProtocolCheck, type ModelRefusalsCheck } from './planner.ts';
import { parseClientBodyOnLoop } from './requestBody.ts';
import { isHeld, type Gated, type RequestTarget } from './stageRecords.ts';
import { StepKey } from './stepKey.ts';
import type { TranslationThread } from './translation/translationThreadClient.ts';
import type { ArrivingBody } from './arrivingBody.ts';
import type { AbortReason, ExchangeWatch } from './exchangeWatch.ts';

/** One target a request is sent to: the first is the request's own, the others come from its profile's fallback list. */
export interface ExchangeStep {
  plan: ExchangePlan;
  target: RequestTarget;
}

/** A step that can be sent: every fallback step, and the request's own unless its profile is held. */
export interface SendableStep extends ExchangeStep {
  target: UpstreamTarget;
}

export interface FallbackServices {
  targets: TargetResolver;
  spendGate?: SpendGate;
  nativeVerified?: NativeProtocolCheck;
  modelRefusals?: ModelRefusalsCheck;
  translation?: TranslationThread;
}

/**
 * The walk ended because the request's body will never be whole, and Airlock refused it (a stalled
 * upload's 408, an end that contradicts the plan): that refusal is the client's answer, not the
 * failed step's, and no later step is planned, as each would wait for the same body.
 */
export interface BodyRefused {
  bodyRefusal: LocalRefusal;
}

/**
 * Asked by the exchange after a step failed: the next step to send, the body's refusal, or null when
 * the failure goes to the client. `watch` is the exchange's: its total timeout bounds a step's wait
 * for a body still arriving.
 */
export interface FallbackRoute {
  next(failure: FailedStep, current: ExchangeStep, watch: BodyWaitWatch): Promise<SendableStep | BodyRefused | null>;
}

/** What ends a step's wait for the body besides the body itself. */
export type BodyWaitWatch = Pick<ExchangeWatch, 'signal' | 'reason'>;

/** A step the body will never be whole for: the walk ends with it, the failed step's answer going to the client. */
interface WalkEnded {
  lastHop: FallbackHop;
}

/**
 * The fallback list of the request's profile, walked once in order. Only that profile's list is
 * used: a step on another profile does not continue with that profile's own list, so no loop can
 * form. A step is skipped (and logged as such) when its profile is gone or has no key, its plan is
 * refused, it would send what an earlier step sent, or its profile's budget would not admit it.
 */
export function fallbackRoute(gated: Gated, services: FallbackServices): FallbackRoute | null {
  const { clientBody, target: origin, identity, trace } = gated;
  const { spendGate } = services;
  const entries = origin.profile.fallbacks;
  if (clientBody === null || entries.length === 0) return null;
  let nextEntry = 0;
  const tried = new Set<string>([stepKey(origin.profile.id, gated.plan.upstreamModel)]);

  async function planned(
    entry: FallbackEntry,
    sentOn: boolean,
    watch: BodyWaitWatch,
  ): Promise<SendableStep | FallbackHop | WalkEnded | (BodyRefused & { hop: FallbackHop })> {
    const skipped = (note: string, errorClass: FallbackHop['errorClass'], model: string | null = entry.model ?? null): FallbackHop => ({
      profileId: entry.profileId ?? origin.profile.id,
      model,
      status: null,
      errorClass,
      note,
    });
    // A body still arriving is planned whole: a step waits for its end, or for the exchange's end.
    const { arriving } = clientBody!;
    const arrival = arriving === undefined ? 'whole' : await bodyArrival(arriving, watch);
    if (arrival === 'timeout_total') {
      const bodyRefusal = arriving!.stalledAtTotalTimeout(origin.profile.timeouts.totalTimeoutMs, sentOn);
      return { bodyRefusal, hop: skipped(bodyRefusal.message, bodyRefusal.errorClass) };
    }
    if (arrival !== 'whole') {
      const bodyRefusal = arrival === 'failed' ? arriving!.refusal(sentOn) : null;
      if (bodyRefusal !== null) return { bodyRefusal, hop: skipped(bodyRefusal.message, bodyRefusal.errorClass) };
      // The client left, or the proxy stops: no later step would have the body either.
      return {
        lastHop: skipped('the request body never arrived whole', arrival === 'proxy_stopping' ? 'proxy_stopping' : 'client_aborted'),
      };
    }
    // Once the body is whole: a wait for an upload may be long, and the key taken before it may be gone by its end.
    const target = entry.profileId === undefined || entry.profileId === origin.profile.id ? ownProfile() : resolve(entry.profileId);
    if ('refusal' in target) return skipped(target.refusal, target.errorClass);
    // Another model on a held profile: its keys are held whatever the model.
    if (isHeld(target)) return skipped(target.unsent.refusal.message, target.unsent.refusal.errorClass);
    const plan = await buildPlan({
      method: gated.method,
      path: gated.path,
      query: gated.query,
      pathModel: gated.pathModel,
      protocol: gated.protocol,
      body: clientBody!,
      // Parsed again for each step (at most five, on a failure path): not held for the whole exchange.
      parsed: parseClientBodyOnLoop(clientBody!, gated.req.headers['content-type']),
      contentType: gated.req.headers['content-type'],
      identity,
      target,
      ...(services.nativeVerified ? { nativeVerified: services.nativeVerified } : {}),
      ...(services.modelRefusals ? { modelRefusals: services.modelRefusals } : {}),
      ...(services.translation ? { translation: services.translation } : {}),
      ...(spendGate ? { needsInputEstimate: (who, profile) => spendGate.needsInputEstimate(who, profile) } : {}),
      ...(entry.model === undefined ? {} : { model: entry.model }),
    });
    if ('refusal' in plan) return skipped(plan.refusal.message, plan.refusal.errorClass);
    const key = stepKey(target.profile.id, plan.upstreamModel);
    if (tried.has(key)) return skipped('the same profile and model as an earlier step', null, plan.upstreamModel);
    const refusal = admitStep(target, plan);
    if (refusal !== null) return skipped(stepRefusalNote(target.profile.id, refusal), refusal.errorClass, plan.upstreamModel);
    tried.add(key);
    return { plan, target };
  }

  /**
   * The request's own profile for a step on another model, with the profile's key as it is now
   * (StepKey): a key the user replaced while the request ran is not sent again, and once it was
   * removed the step is skipped. A pool's lease goes on with its current key while the pool holds
   * it, else with the pool's next key (it never moves to one taken away).
   */
  function ownProfile(): RequestTarget | { refusal: string; errorClass: LocalErrorClass } {
    if (isHeld(origin)) return origin;
    const lease = origin.keyLease;
    if (lease !== undefined) {
      if (lease.holdsCurrent()) return origin;
      const next = lease.next(Date.now());
      return isLocalRefusal(next) ? { refusal: next.message, errorClass: next.errorClass } : origin;
    }
    const key = new StepKey(origin);
    if (key.followForResend() !== 'removed') return key.target;
    return { refusal: `the gateway key of profile "${origin.profile.id}" was removed while the request ran`, errorClass: 'no_key' };
  }

  function resolve(profileId: string): UpstreamTarget | { refusal: string; errorClass: LocalErrorClass } {
    const target = services.targets.resolve({ ...identity, pinnedProfileId: profileId });
    if (!isLocalRefusal(target)) return target;
    if (target.code === 'no_profile') {
      return {
        refusal: `fallback profile "${profileId}" does not exist: add it, or remove it from the fallbacks of "${origin.profile.id}"`,
        errorClass: target.errorClass,
      };
    }
    // A step's profile that is held (its pool's keys cooling) is skipped: only the request's own profile's list is walked.
    return { refusal: target.message, errorClass: target.errorClass };
  }

  /**
   * The step's profile's caps at the step's own prices, on the estimate's upper bound (a fallback
   * does not wait for a count), and its auth breaker; admitted, the request's hold moves to it.
   */
  function admitStep(target: UpstreamTarget, plan: ExchangePlan): LocalRefusal | null {
    const gate = services.spendGate;
    if (gate === undefined) return null;
    const estimatedInputTokens = gate.needsInputEstimate(identity, target.profile) ? quickInputEstimate(plan).tokens : null;
    const input = spendCheckInput(trace.requestId, gated, target.profile, plan, estimatedInputTokens, target.keyFromEnvironment === true);
    return gate.admitStep({ ...input, ownProfile: target.profile.id === origin.profile.id }, target.apiKey);
  }

  return {
    async next(failure, current, watch) {
      const failed = failedHop(failure, current);
      const decision = decideFallback({
        failure,
        method: gated.method,
        upstreamPath: current.plan.upstreamPath,
        hasIdempotencyKey: idempotencyKeyOf(gated.req.headers as IncomingHttpHeaders) !== null,
        upstreamMayHaveRun: trace.upstreamMayHaveRun,
        bytesSentToClient: gated.res.headersSent,
      });
      if (!decision.fallBack) {
        if (trace.fallback !== undefined) trace.fellBack(failed, [], null);
        return null;
      }
      // The failed step's probe, if it carried one, has its answer before any step asks that breaker again.
      if (failure.kind !== 'unsent') services.spendGate?.stepLeft(current.target.profile.id);
      const skipped: FallbackHop[] = [];
      // What was sent of an arriving body: nothing, when the failed step was a held profile's.
      const sentOn = failure.kind !== 'unsent';
      while (nextEntry < entries.length) {
        const entry = entries[nextEntry]!;
        nextEntry += 1;
        const step = await planned(entry, sentOn, watch);
        if ('plan' in step) {
          trace.fellBack(failed, skipped, { profileId: step.target.profile.id, model: step.plan.upstreamModel });
          return step;
        }
        if ('bodyRefusal' in step) {
          trace.fellBack(failed, [...skipped, step.hop], null);
          return { bodyRefusal: step.bodyRefusal };
        }
        if ('lastHop' in step) {
          trace.fellBack(failed, [...skipped, step.lastHop], null);
          return null;
        }
        skipped.push(step);
      }
      if (skipped.length > 0 || trace.fallback !== undefined) trace.fellBack(failed, skipped, null);
      return null;
    },
  };
}

/** Whether the arriving body came whole, its read failed, or the exchange ended first (and why). */
async function bodyArrival(arriving: ArrivingBody, watch: BodyWaitWatch): Promise<'whole' | 'failed' | AbortReason> {
  if (arriving.complete) return 'whole';
  const { signal } = watch;
  let onAbort = (): void => undefined;
  const ended = new Promise<AbortReason>((resolve) => {
    onAbort = () => resolve(watch.reason() ?? 'client_aborted');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      arriving.whenComplete().then(
        () => 'whole' as const,
        () => 'failed' as const,
      ),
      ended,
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The step that failed, as the chain shows it: a step never sent (a held profile) is skipped, with why. */
function failedHop(failure: FailedStep, current: ExchangeStep): FallbackHop {
  const hop = { profileId: current.target.profile.id, model: current.plan.upstreamModel };
  if (failure.kind === 'unsent') return { ...hop, status: null, errorClass: failure.refusal.errorClass, note: failure.refusal.message };
  return { ...hop, status: failure.kind === 'status' ? failure.status : null, errorClass: failure.errorClass };
}

/** A refused step's note: a budget is named as the step profile's, other refusals say their own cause. */
function stepRefusalNote(profileId: string, refusal: LocalRefusal): string {
  return refusal.errorClass === 'budget_exceeded' ? `the budget of profile "${profileId}" would not admit it` : refusal.message;
}

function stepKey(profileId: string, model: string | null): string {
  return `${profileId}\u0000${model ?? ''}`;
}

/** What a header value cannot hold as it is: anything outside visible ASCII, and `%` (the escape itself). */
const NEEDS_ENCODING = /[^\x21-\x7e]|%/;
/** Per code point (`u`): a character outside the BMP is encoded whole, not as two halves encodeURIComponent refuses. */
const ENCODED_CHARS = /[^\x21-\x7e]|%/gu;

/** What `x-airlock-answered-by` says: `profile/model` (a profile id has no `/`), as header-safe text. */
export function answeredByHeader(step: ExchangeStep): string {
  const text = step.plan.upstreamModel === null ? step.target.profile.id : `${step.target.profile.id}/${step.plan.upstreamModel}`;
  // A model name is the client's text: anything outside visible ASCII is percent-encoded so the header stays valid.
  // Nearly every name needs none: tested first, as a replace with a callback costs a few microseconds.
  return NEEDS_ENCODING.test(text) ? text.toWellFormed().replace(ENCODED_CHARS, (char) => encodeURIComponent(char)) : text;
}
