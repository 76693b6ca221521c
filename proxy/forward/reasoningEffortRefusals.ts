import type { Profile } from '../contracts/profile.ts';
import { requestWithoutRefusedEffort } from '../protocols/chat/reasoningEffort.ts';
import type { ExchangePlan } from './plan.ts';

/**
 * The `reasoning_effort` levels a gateway refused for a model (protocols/chat/reasoningEffort.ts),
 * per profile and base URL: the model's translated requests leave such a level out, with a note.
 * Per level, since a refusal may be of one level only (`xhigh` on a model whose highest is `high`),
 * and a model that takes none refuses each level once. Kept while the proxy runs: after a restart
 * one request learns it again, at the cost of a 400 that ran nothing.
 */
export class ReasoningEffortRefusals {
  private readonly refusedLevels = new Map<string, string[]>();

  refused(profile: Profile, upstreamModel: string): readonly string[] {
    return this.refusedLevels.get(refusalKey(profile, upstreamModel)) ?? [];
  }

  remember(profile: Profile, upstreamModel: string, effort: string): void {
    const key = refusalKey(profile, upstreamModel);
    const levels = this.refusedLevels.get(key) ?? [];
    if (!levels.includes(effort)) this.refusedLevels.set(key, [...levels, effort]);
  }
}

/** Another base URL is another gateway, whose models may take the parameter. */
function refusalKey(profile: Profile, upstreamModel: string): string {
  return `${profile.id}\n${profile.baseUrl}\n${upstreamModel}`;
}

/**
 * The translated request again without its `reasoning_effort`, when the gateway's answer was a 400
 * refusing it (the chat protocol reads the answer and cuts the body: protocols/chat/reasoningEffort.ts):
 * such an answer ran nothing (a 400 is never billed), so sending the request fixed is no retry of a
 * request that may have run (docs/gateway-spec.md §7: fix the request). Null when the answer is
 * another, or the request sent no effort.
 */
export function planWithoutReasoningEffort(
  plan: ExchangePlan,
  answer: { status: number; bodyText: string },
): { plan: ExchangePlan; refusedEffort: string } | null {
  if (plan.mode !== 'translate' || plan.body?.length !== 1) return null;
  const without = requestWithoutRefusedEffort({ body: plan.body[0]!, chatBody: plan.chatBody }, answer);
  if (without === null) return null;
  const { body, chatBody, refusedEffort } = without;
  return { plan: { ...plan, body: [body], byteLength: body.length, chatBody }, refusedEffort };
}
