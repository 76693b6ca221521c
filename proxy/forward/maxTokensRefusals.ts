import type { Profile } from '../contracts/profile.ts';
import { MAX_COMPLETION_TOKENS_KEY_JSON, refusesMaxTokens } from '../protocols/chat/maxTokens.ts';
import { isChatCompletion, routeFor } from '../protocols/registry.ts';
import { renamableMaxTokensKey, spliceChunks } from './bodyRewrite.ts';
import { TopLevelScanner } from './jsonScan.ts';
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
 * URL: their translated requests, and chat clients' own, bound the output as `max_completion_tokens`
 * from the start. Bounded as the reasoning_effort refusals are (MAX_MODELS_REMEMBERED): the model
 * learned of longest ago is forgotten, which costs one 400 that ran nothing, then it is learned again.
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
 * The request again with its `max_tokens` renamed `max_completion_tokens`, when the gateway's answer
 * was a 400 refusing `max_tokens` (protocols/chat/maxTokens.ts): such an answer ran nothing (a 400 is
 * never billed), so sending the request fixed is no retry of a request that may have run
 * (docs/gateway-spec.md §7: fix the request). The top-level key is renamed on the bytes as sent, the
 * rest as they were: a translated request's bound that Airlock wrote, or a chat client's own
 * (opencode sends `max_tokens` to every model); the plan's output bound, the client's, stays.
 * Scanned again, as this runs after a 400 only. Null when the answer is another, or the request has
 * no `max_tokens` to rename (or a body still arriving).
 */
export function planWithMaxCompletionTokens(plan: ExchangePlan, answer: { status: number; bodyText: string }): ExchangePlan | null {
  const { body } = plan;
  if (body === null || plan.arriving !== undefined || !isChatCompletion(routeFor(plan.upstreamPath, plan.method))) return null;
  if (!refusesMaxTokens(answer.status, answer.bodyText)) return null;
  const scanner = new TopLevelScanner();
  for (const chunk of body) if (!scanner.feed(chunk)) break;
  const key = scanner.result.closed ? renamableMaxTokensKey(scanner.result) : null;
  if (key === null) return null;
  const name = Buffer.from(MAX_COMPLETION_TOKENS_KEY_JSON);
  const byteLength = plan.byteLength + name.length - (key.end - key.start);
  // One buffer, as a translated body is: a later fix (reasoning_effort's) edits it as one.
  return { ...plan, body: [Buffer.concat(spliceChunks(body, key.start, key.end, name), byteLength)], byteLength };
}
