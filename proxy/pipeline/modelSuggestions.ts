import { closestModelIds } from '../core/modelSuggestions.ts';
import type { UpstreamTarget } from './services.ts';
import { sendUpstream } from './upstreamClient.ts';

const MODEL_LIST_TTL_MS = 5 * 60_000;
const MODEL_LIST_TIMEOUT_MS = 3_000;
const cache = new Map<string, { fetchedAtMs: number; ids: string[] }>();

/** The gateway's own model ids for this profile (docs/gateway-spec.md §4.1), cached briefly; empty when unreachable. */
export async function listGatewayModelIds(target: UpstreamTarget): Promise<string[]> {
  const cacheKey = `${target.profile.id}\u0000${target.profile.baseUrl}`;
  const cached = cache.get(cacheKey);
  if (cached && Date.now() - cached.fetchedAtMs < MODEL_LIST_TTL_MS) return cached.ids;
  try {
    const response = await sendUpstream({
      url: new URL(`${target.profile.baseUrl}/models`),
      method: 'GET',
      headers: { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' },
      body: null,
      signal: AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS),
      connectTimeoutMs: target.profile.timeouts.connectTimeoutMs,
      idleTimeoutMs: MODEL_LIST_TIMEOUT_MS,
    });
    const json = (await response.body.json()) as { data?: { id?: unknown }[] };
    if (response.statusCode !== 200 || !Array.isArray(json.data)) return [];
    const ids = json.data.map((model) => model.id).filter((id): id is string => typeof id === 'string');
    cache.set(cacheKey, { fetchedAtMs: Date.now(), ids });
    return ids;
  } catch {
    return [];
  }
}

/** For a model-not-found error: the closest real ids, so the user can copy the right one. */
export async function suggestModels(target: UpstreamTarget, requestedModel: string): Promise<string[]> {
  return closestModelIds(requestedModel, await listGatewayModelIds(target));
}
