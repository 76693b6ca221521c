import type { Capability, CapabilityBadge, ModelListResponse, ModelRow, ModelStats } from '../../contracts/models.ts';
import type { ErrorExplanation } from '../../contracts/errors.ts';
import type { ModelStats as LogModelStats } from '../../contracts/log.ts';
import type { Profile } from '../../contracts/profile.ts';
import { findPrice } from '../../spend/cost.ts';
import { cachedGatewayModels, fetchGatewayModels } from '../../forward/gatewayModels.ts';
import { isLocalRefusal } from '../../contracts/ports.ts';
import type { ControlDeps } from './deps.ts';
import { ApiError } from './http.ts';
import { PROBE_TIMEOUT_MS } from './gatewayProbe.ts';
import { explanationOf } from './mapping.ts';

const STATS_WINDOW_MS = 30 * 24 * 60 * 60_000;
export const CAPABILITIES: readonly Capability[] = ['chat', 'stream', 'tools', 'image_input', 'messages_native', 'responses_native'];

export function uncheckedBadges(): CapabilityBadge[] {
  return CAPABILITIES.map((capability) => ({ capability, supported: null, checkedAtMs: null }));
}

export function statsOf(stats: LogModelStats | undefined): ModelStats | null {
  if (!stats) return null;
  return {
    requests: stats.requests,
    errorRate: stats.errorRate,
    p50LatencyMs: stats.p50DurationMs,
    p95LatencyMs: stats.p95DurationMs,
    p50TtfbMs: stats.p50TtfbMs,
  };
}

/**
 * The Models screen: the gateway's model list of the active profile (fetched when first shown and
 * on refresh, in the cache the proxy's model hints share), joined with prices, the user's own
 * figures and capability badges.
 */
export class ModelCatalog {
  /** The last fetch's failure per profile, shown with the list it kept until a fetch succeeds. */
  readonly #errors = new Map<string, ErrorExplanation>();

  async list(deps: ControlDeps, refresh: boolean, nowMs: number): Promise<ModelListResponse> {
    const config = deps.config.snapshot();
    const profile = config.profiles.find((candidate) => candidate.id === config.activeProfileId);
    if (!profile) return { profileId: null, fetchedAtMs: null, models: [], error: null };
    if (refresh || (!cachedGatewayModels(profile) && !this.#errors.has(profile.id))) await this.#fetch(deps, profile, nowMs);
    const cached = cachedGatewayModels(profile);
    const stats = new Map(
      (await deps.log.reads.modelStats({ fromMs: nowMs - STATS_WINDOW_MS, toMs: nowMs + 1 })).map((entry) => [entry.model, entry]),
    );
    const models: ModelRow[] = (cached?.ids ?? []).map((id) => ({
      id,
      price: findPrice(profile.prices, id) ?? null,
      stats: statsOf(stats.get(id)),
      capabilities: deps.capabilities?.badges(profile.id, id) ?? uncheckedBadges(),
    }));
    return { profileId: profile.id, fetchedAtMs: cached?.fetchedAtMs ?? null, models, error: this.#errors.get(profile.id) ?? null };
  }

  async checkCapabilities(deps: ControlDeps, model: string): Promise<CapabilityBadge[]> {
    if (!deps.capabilities) throw new ApiError('unavailable', 'The capability check is not available in this build of Airlock.');
    const activeProfileId = deps.config.snapshot().activeProfileId;
    if (!activeProfileId) throw new ApiError('invalid', 'No active profile: add a profile and make it active first.');
    return deps.capabilities.check(activeProfileId, model);
  }

  async #fetch(deps: ControlDeps, profile: Profile, nowMs: number): Promise<void> {
    const target = deps.targets.resolve({ tokenName: null, pinnedProfileId: profile.id });
    const fetched = isLocalRefusal(target)
      ? { ok: false as const, errorClass: target.errorClass }
      : await fetchGatewayModels(target, nowMs, PROBE_TIMEOUT_MS);
    if (fetched.ok) this.#errors.delete(profile.id);
    else this.#errors.set(profile.id, explanationOf(fetched.errorClass));
  }
}
