import type { ErrorExplanation } from './errors.ts';
import type { ModelPrice } from './profile.ts';

/** The control API's model list (GET /models): each model's price, stats and checked capabilities. */

export type Capability = 'chat' | 'stream' | 'tools' | 'image_input' | 'messages_native' | 'responses_native';
export interface CapabilityBadge {
  capability: Capability;
  supported: boolean | null;
  checkedAtMs: number | null;
}

export interface ModelStats {
  requests: number;
  errorRate: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  p50TtfbMs: number | null;
}

export interface ModelRow {
  id: string;
  price: ModelPrice | null;
  stats: ModelStats | null;
  capabilities: CapabilityBadge[];
}

/** GET /models?refresh=1 */
export interface ModelListResponse {
  profileId: string | null;
  fetchedAtMs: number | null;
  models: ModelRow[];
  /** Why the list could not be fetched, explained; the cached list (if any) is still returned. */
  error: ErrorExplanation | null;
}

/** POST /models/:id/capabilities — runs the on-demand capability check for the active profile. */
export interface CapabilityCheckResponse {
  model: string;
  capabilities: CapabilityBadge[];
}
