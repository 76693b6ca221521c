import type { Profile } from '../contracts/profile.ts';
import { requestWithoutRefusedEffort } from '../protocols/chat/reasoningEffort.ts';
import type { ExchangePlan } from './plan.ts';
import { LearnedModels, type GatewayModel } from './learnedModels.ts';

/** The levels one gateway (a profile at a base URL) refused for one model. */
export interface RefusedEfforts extends GatewayModel {
  levels: string[];
}

interface ReasoningEffortRefusalsOptions {
  /** What earlier runs learned (app/capabilities/reasoningEffortFile.ts reads it at start). */
  known?: readonly RefusedEfforts[];
  /** Told every refusal learned, with all of them, to keep them for the next run. */
  onLearned?: (all: RefusedEfforts[]) => void;
}

/**
 * The `reasoning_effort` levels a gateway refused for a model (protocols/chat/reasoningEffort.ts),
 * per profile and base URL: the model's translated requests leave such a level out, with a note.
 * Per level, since a refusal may be of one level only (`xhigh` on a model whose highest is `high`),
 * and a model that takes none refuses each level once. Kept across restarts when `onLearned` keeps
 * them: otherwise each start paid one refused 400 per model and level again. Past
 * MAX_MODELS_REMEMBERED the model learned of longest ago is forgotten (and left out of what is kept).
 */
export class ReasoningEffortRefusals {
  private readonly refusedLevels = new LearnedModels<RefusedEfforts>();
  private readonly onLearned: ((all: RefusedEfforts[]) => void) | undefined;

  constructor(options: ReasoningEffortRefusalsOptions = {}) {
    this.onLearned = options.onLearned;
    for (const known of options.known ?? []) {
      for (const level of known.levels) this.add(known.profileId, known.baseUrl, known.model, level);
    }
  }

  refused(profile: Profile, upstreamModel: string): readonly string[] {
    return this.refusedLevels.get(profile.id, profile.baseUrl, upstreamModel)?.levels ?? [];
  }

  remember(profile: Profile, upstreamModel: string, effort: string): void {
    if (this.add(profile.id, profile.baseUrl, upstreamModel, effort)) this.onLearned?.(this.all());
  }

  all(): RefusedEfforts[] {
    return this.refusedLevels.values().map((refused) => ({ ...refused, levels: [...refused.levels] }));
  }

  /** Whether the level was new. A model learned of again moves to the newest place. */
  private add(profileId: string, baseUrl: string, model: string, level: string): boolean {
    const refused = this.refusedLevels.get(profileId, baseUrl, model) ?? { profileId, baseUrl, model, levels: [] };
    if (refused.levels.includes(level)) return false;
    this.refusedLevels.set({ ...refused, levels: [...refused.levels, level] });
    return true;
  }
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
  const without = requestWithoutRefusedEffort(plan.body[0]!, answer);
  if (without === null) return null;
  const { body, refusedEffort } = without;
  // The input's bound stays: it counts no reasoning_effort (spend/estimate.ts).
  return { plan: { ...plan, body: [body], byteLength: body.length }, refusedEffort };
}
