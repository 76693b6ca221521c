import type { Profile } from '../contracts/profile.ts';
import { requestWithMaxCompletionTokens } from '../protocols/chat/maxTokens.ts';
import type { ExchangePlan } from './plan.ts';
import { LearnedModels, type GatewayModel } from './learnedModels.ts';

/** A model one gateway (a profile at a base URL) refused chat's `max_tokens` for. */
export type MaxTokensRefusal = GatewayModel;

interface MaxTokensRefusalsOptions {
  /** What earlier runs learned. */
  known?: readonly MaxTokensRefusal[];
  /** Told every model learned, with all of them, to keep them for the next run. */
  onLearned?: (all: MaxTokensRefusal[]) => void;
}

/**
 * The models a gateway refused `max_tokens` for (protocols/chat/maxTokens.ts), per profile and base
 * URL: their translated requests bound the output as `max_completion_tokens` from the start. Bounded
 * as the reasoning_effort refusals are (MAX_MODELS_REMEMBERED): the model learned of longest ago is
 * forgotten, which costs one 400 that ran nothing, then it is learned again.
 */
export class MaxTokensRefusals {
  private readonly refusing = new LearnedModels<MaxTokensRefusal>();
  private readonly onLearned: ((all: MaxTokensRefusal[]) => void) | undefined;

  constructor(options: MaxTokensRefusalsOptions = {}) {
    this.onLearned = options.onLearned;
    for (const known of options.known ?? []) this.add(known);
  }

  refuses(profile: Profile, upstreamModel: string): boolean {
    return this.refusing.get(profile.id, profile.baseUrl, upstreamModel) !== undefined;
  }

  remember(profile: Profile, upstreamModel: string): void {
    if (this.add({ profileId: profile.id, baseUrl: profile.baseUrl, model: upstreamModel })) this.onLearned?.(this.all());
  }

  all(): MaxTokensRefusal[] {
    return this.refusing.values().map((refusal) => ({ ...refusal }));
  }

  /** Whether the model was new. */
  private add(refusal: MaxTokensRefusal): boolean {
    if (this.refusing.get(refusal.profileId, refusal.baseUrl, refusal.model) !== undefined) return false;
    this.refusing.set(refusal);
    return true;
  }
}

/**
 * The translated request again with its `max_tokens` renamed `max_completion_tokens`, when the
 * gateway's answer was a 400 refusing `max_tokens` (the chat protocol reads the answer and renames
 * the bound it wrote first: protocols/chat/maxTokens.ts): such an answer ran nothing (a 400 is never
 * billed), so sending the request fixed is no retry of a request that may have run
 * (docs/gateway-spec.md §7: fix the request). Null when the answer is another, or the request sent
 * no `max_tokens`.
 */
export function planWithMaxCompletionTokens(plan: ExchangePlan, answer: { status: number; bodyText: string }): ExchangePlan | null {
  if (plan.mode !== 'translate' || plan.body?.length !== 1) return null;
  const renamed = requestWithMaxCompletionTokens(plan.body[0]!, answer);
  // The bounds stay: the plan's output bound is the client's, read from its own body (planner.ts).
  return renamed === null ? null : { ...plan, body: [renamed], byteLength: renamed.length };
}
