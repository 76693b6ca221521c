import { RESENT_RENAMED_AND_REFUSED_AGAIN_NOTE, RESENT_WITH_MAX_COMPLETION_TOKENS_NOTE } from '../protocols/chat/maxTokens.ts';
import { RESENT_AND_REFUSED_AGAIN_NOTE, RESENT_WITHOUT_REASONING_EFFORT_NOTE } from '../protocols/chat/reasoningEffort.ts';
import type { SendableStep } from './fallbackRoute.ts';
import { planWithMaxCompletionTokens, type MaxTokensRefusals } from './maxTokensRefusals.ts';
import type { ExchangePlan } from './plan.ts';
import { planWithoutReasoningEffort, type ReasoningEffortRefusals } from './reasoningEffortRefusals.ts';
import type { StepKey } from './stepKey.ts';
import type { RequestTrace } from './trace.ts';
import type { AttemptsResult } from './upstreamAttempts.ts';

/** Where what a gateway refused of a model is kept, so that the model's later requests are written without it. */
export interface LearnedRefusals {
  reasoningEfforts?: ReasoningEffortRefusals;
  maxTokens?: MaxTokensRefusals;
}

/** What a 400 had changed in a request: remembered once the changed request is not refused again. */
type Fix = { kind: 'reasoning_effort'; level: string } | { kind: 'max_tokens' };

/** The request changed as a 400 asked (a parameter the model refuses), or null when the answer asks nothing Airlock can change. */
function fixedPlan(plan: ExchangePlan, answer: { status: number; bodyText: string }): { plan: ExchangePlan; fix: Fix } | null {
  const withoutEffort = planWithoutReasoningEffort(plan, answer);
  if (withoutEffort !== null) return { plan: withoutEffort.plan, fix: { kind: 'reasoning_effort', level: withoutEffort.refusedEffort } };
  const renamed = planWithMaxCompletionTokens(plan, answer);
  return renamed === null ? null : { plan: renamed, fix: { kind: 'max_tokens' } };
}

/**
 * One exchange's resends of a request a 400 refused for a parameter of the model's (a translated
 * one's `reasoning_effort` cut; `max_tokens` renamed, a chat client's own too): each ran nothing and
 * is not billed, so the fixed request is sent at once, no retry of the same bytes
 * (docs/gateway-spec.md §7: fix the request).
 * Each fix is made once (the body no longer holds what was refused), so at most one resend per kind.
 * A fix is remembered for the model's later requests only once a resend is not refused again with a
 * 400: if it is, the first 400 was about something else, the resend's answer goes to the client,
 * nothing is remembered, and the row says so. A resend refused for the other parameter is fixed in
 * turn, and both are judged by the last answer.
 */
export class RequestFixes {
  private readonly trace: RequestTrace;
  private readonly learned: LearnedRefusals;
  private pending: Fix[] = [];

  constructor(trace: RequestTrace, learned: LearnedRefusals = {}) {
    this.trace = trace;
    this.learned = learned;
  }

  /**
   * The step to send again, fixed, after `result` answered `step`; null when the answer stands.
   * The fixed request goes with the step's key as it is once the 400 came, and not at all once that
   * key was taken away (StepKey.targetNow): the user may remove or replace it while the first attempt runs.
   */
  fixedStep(step: SendableStep, result: AttemptsResult, key: Pick<StepKey, 'targetNow'>): SendableStep | null {
    const fixed = result.kind === 'error' ? fixedPlan(step.plan, result) : null;
    const target = fixed === null ? null : key.targetNow();
    if (fixed !== null && target !== null) {
      this.pending.push(fixed.fix);
      this.trace.resentBeyondPolicy();
      return { plan: fixed.plan, target };
    }
    if (fixed !== null) this.trace.notedLater(keyTakenAwayNote(step.target.profile.id));
    this.settle(step, result);
    return null;
  }

  private settle(step: SendableStep, result: AttemptsResult): void {
    // Nearly every exchange: nothing was resent, nothing to judge.
    if (this.pending.length === 0) return;
    const refusedAgain = result.kind === 'error' && result.status === 400;
    const { profile } = step.target;
    const model = step.plan.upstreamModel ?? '';
    for (const fix of this.pending) {
      if (!refusedAgain && fix.kind === 'reasoning_effort') this.learned.reasoningEfforts?.remember(profile, model, fix.level);
      if (!refusedAgain && fix.kind === 'max_tokens') this.learned.maxTokens?.remember(profile, model);
      // The row's notes were written when it began: the resend's own go with its end.
      this.trace.notedLater(noteOf(fix, refusedAgain));
    }
    this.pending = [];
  }
}

function keyTakenAwayNote(profileId: string): string {
  return `Not resent with the refused parameter fixed: the gateway key of profile "${profileId}" it went with was removed or replaced while the request ran.`;
}

function noteOf(fix: Fix, refusedAgain: boolean): string {
  if (fix.kind === 'reasoning_effort') return refusedAgain ? RESENT_AND_REFUSED_AGAIN_NOTE : RESENT_WITHOUT_REASONING_EFFORT_NOTE;
  return refusedAgain ? RESENT_RENAMED_AND_REFUSED_AGAIN_NOTE : RESENT_WITH_MAX_COMPLETION_TOKENS_NOTE;
}
