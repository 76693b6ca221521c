import type { SwitchCheckResponse } from '../../contracts/profileViews.ts';
import { MAX_PAGE_LIMIT } from '../../contracts/log.ts';
import type { Profile } from '../../contracts/profile.ts';
import { isLocalRefusal } from '../../contracts/ports.ts';
import { cachedGatewayModels, fetchGatewayModels } from '../../forward/gatewayModels.ts';
import { resolveUpstreamModel } from '../../forward/modelRouting.ts';
import type { ControlDeps } from './deps.ts';

/** "Recently used" is the last day: an agent left running overnight still counts, last week's experiment does not. */
const RECENT_WINDOW_MS = 24 * 60 * 60_000;
/** The switch waits for this at most when the profile's model list was never fetched. */
const LIST_FETCH_TIMEOUT_MS = 5_000;

/** The models the recent requests asked for, newest first, each once. */
export async function recentRequestedModels(deps: ControlDeps, nowMs: number): Promise<string[]> {
  const page = await deps.log.reads.listRequests({ fromMs: nowMs - RECENT_WINDOW_MS, toMs: nowMs + 1, limit: MAX_PAGE_LIMIT });
  const seen = new Set<string>();
  for (const row of page.rows) if (row.requestedModel) seen.add(row.requestedModel);
  return [...seen];
}

/** Which of `requested` the profile would send as an id its gateway does not list (after its aliases and routes). */
export function modelsMissingFrom(profile: Profile, listedIds: readonly string[], requested: readonly string[]) {
  const listed = new Set(listedIds);
  return requested
    .map((model) => ({
      requested: model,
      upstream:
        resolveUpstreamModel({ requestedModel: model, aliases: profile.modelAliases, routes: profile.modelRoutes }).upstreamModel ?? model,
    }))
    .filter((entry) => !listed.has(entry.upstream));
}

/**
 * What switching to `profile` now would break: requests still in flight (they finish on the old
 * profile, but the agents' next ones go to the new one) and models the agents used that the new
 * profile's gateway does not list (their next requests would fail with model_not_found).
 */
export async function checkProfileSwitch(
  deps: ControlDeps,
  profile: Profile,
  inFlight: number,
  nowMs: number,
): Promise<SwitchCheckResponse> {
  const requested = await recentRequestedModels(deps, nowMs);
  let list = cachedGatewayModels(profile);
  if (!list && requested.length > 0) {
    const target = deps.targets.resolve({ tokenName: null, pinnedProfileId: profile.id });
    if (!isLocalRefusal(target)) {
      const fetched = await fetchGatewayModels(target, nowMs, LIST_FETCH_TIMEOUT_MS);
      if (fetched.ok) list = fetched.list;
    }
  }
  return {
    profileId: profile.id,
    inFlight,
    recentModels: requested,
    missingModels: list ? modelsMissingFrom(profile, list.ids, requested) : [],
    modelListKnown: list !== null,
  };
}
