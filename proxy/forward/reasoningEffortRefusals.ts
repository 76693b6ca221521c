import type { Profile } from '../contracts/profile.ts';
import {
  bytesWithoutReasoningEffort,
  REASONING_EFFORT_FIELD,
  refusesReasoningEffort,
  RESENT_WITHOUT_REASONING_EFFORT_NOTE,
} from '../protocols/chat/reasoningEffort.ts';
import type { ExchangePlan } from './plan.ts';

/**
 * The models whose gateway refused `reasoning_effort` (protocols/chat/reasoningEffort.ts), per
 * profile and base URL: their translated requests leave it out, with a note. Kept while the proxy
 * runs: after a restart one request learns it again, at the cost of a 400 that ran nothing.
 */
export class ReasoningEffortRefusals {
  private readonly refusedModels = new Set<string>();

  refused(profile: Profile, upstreamModel: string): boolean {
    return this.refusedModels.has(refusalKey(profile, upstreamModel));
  }

  remember(profile: Profile, upstreamModel: string): void {
    this.refusedModels.add(refusalKey(profile, upstreamModel));
  }
}

/** Another base URL is another gateway, whose models may take the parameter. */
function refusalKey(profile: Profile, upstreamModel: string): string {
  return `${profile.id}\n${profile.baseUrl}\n${upstreamModel}`;
}

/**
 * The translated request again without its `reasoning_effort`, when the gateway's answer was a 400
 * naming it: such an answer ran nothing (a 400 is never billed), so sending the request fixed is
 * no retry of a request that may have run (docs/gateway-spec.md §7: fix the request). Null when
 * the answer is another, or the request sent no effort.
 */
export function planWithoutReasoningEffort(plan: ExchangePlan, answer: { status: number; bodyText: string }): ExchangePlan | null {
  if (plan.mode !== 'translate' || plan.body?.length !== 1 || !refusesReasoningEffort(answer.status, answer.bodyText)) return null;
  const body = bytesWithoutReasoningEffort(plan.body[0]!);
  if (body === null) return null;
  const chatBody = plan.chatBody === null ? null : { ...plan.chatBody };
  if (chatBody !== null) delete chatBody[REASONING_EFFORT_FIELD];
  return { ...plan, body: [body], byteLength: body.length, chatBody, notes: [...plan.notes, RESENT_WITHOUT_REASONING_EFFORT_NOTE] };
}
