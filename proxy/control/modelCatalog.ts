import type { Capability, CapabilityBadge, ErrorExplanation, ModelListResponse, ModelRow, ModelStats } from '../contracts/api.ts';
import type { ModelStats as LogModelStats } from '../contracts/log.ts';
import type { Profile } from '../contracts/profile.ts';
import { findPrice } from '../billing/cost.ts';
import { isLocalRefusal } from '../pipeline/services.ts';
import type { ControlDeps } from './deps.ts';
import { ApiError } from './http.ts';
import { modelIdsFrom, probeGateway } from './gatewayProbe.ts';
import { explanationOf } from './mapping.ts';

const STATS_WINDOW_MS = 30 * 24 * 60 * 60_000;
export const CAPABILITIES: readonly Capability[] = ['chat', 'stream', 'tools', 'image_input', 'messages_native', 'responses_native'];

interface CachedList {
  fetchedAtMs: number | null;
  ids: string[];
  error: ErrorExplanation | null;
}

export function uncheckedBadges(): CapabilityBadge[] {
  return CAPABILITIES.map((capability) => ({ capability, supported: null, checkedAtMs: null }));
}

export function statsOf(stats: LogModelStats | undefined): ModelStats | null {
  if (!stats) return null;
  return { requests: stats.requests, errorRate: stats.errorRate, p50LatencyMs: stats.p50DurationMs, p95LatencyMs: stats.p95DurationMs, p50TtfbMs: stats.p50TtfbMs };
}

/**
 * The gateway's model list per profile (docs/gateway-spec.md §4.1: it differs per account, so it is fetched, never
 * hard-coded), cached until the user refreshes, joined with prices, the user's own figures and
 * capability badges.
 */
export class ModelCatalog {
  readonly #lists = new Map<string, CachedList>();

  async list(deps: ControlDeps, refresh: boolean, nowMs: number): Promise<ModelListResponse> {
    const config = deps.config.snapshot();
    const profile = config.profiles.find((candidate) => candidate.id === config.activeProfileId);
    if (!profile) return { profileId: null, fetchedAtMs: null, models: [], error: null };
    let cached = this.#lists.get(profile.id);
    if (!cached || refresh) {
      cached = await this.#fetch(deps, profile, nowMs, cached);
      this.#lists.set(profile.id, cached);
    }
    const stats = new Map(deps.log.modelStats({ fromMs: nowMs - STATS_WINDOW_MS, toMs: nowMs + 1 }).map((entry) => [entry.model, entry]));
    const models: ModelRow[] = cached.ids.map((id) => ({
      id,
      price: findPrice(profile.prices, id) ?? null,
      stats: statsOf(stats.get(id)),
      capabilities: deps.capabilities?.badges(profile.id, id) ?? uncheckedBadges(),
    }));
    return { profileId: profile.id, fetchedAtMs: cached.fetchedAtMs, models, error: cached.error };
  }

  async checkCapabilities(deps: ControlDeps, model: string): Promise<CapabilityBadge[]> {
    if (!deps.capabilities) throw new ApiError('unavailable', 'The capability check is not available in this build of Airlock.');
    const activeProfileId = deps.config.snapshot().activeProfileId;
    if (!activeProfileId) throw new ApiError('invalid', 'No active profile: add a profile and make it active first.');
    return deps.capabilities.check(activeProfileId, model);
  }

  async #fetch(deps: ControlDeps, profile: Profile, nowMs: number, previous: CachedList | undefined): Promise<CachedList> {
    const target = deps.targets.resolve({ tokenName: null, pinnedProfileId: profile.id });
    if (isLocalRefusal(target)) return { fetchedAtMs: previous?.fetchedAtMs ?? null, ids: previous?.ids ?? [], error: explanationOf(target.errorClass) };
    const probe = await probeGateway(target, 'GET', '/models');
    if (probe.errorClass !== null) return { fetchedAtMs: previous?.fetchedAtMs ?? null, ids: previous?.ids ?? [], error: explanationOf(probe.errorClass) };
    return { fetchedAtMs: nowMs, ids: modelIdsFrom(probe.bodyText), error: null };
  }
}
