import type { UpstreamErrorClass } from '../contracts/errors.ts';
import { classifyNetworkFailure, classifyUpstreamResponse } from '../core/errorClass.ts';
import { redactKnownSecrets } from '../core/redact.ts';
import { closestModelIds } from './modelSuggestions.ts';
import type { UpstreamTarget } from '../contracts/ports.ts';
import { fetchUpstreamText } from './upstreamClient.ts';

/**
 * The gateway's model list per profile (docs/gateway-spec.md §4.1: it differs per account, so it
 * is fetched, never hard-coded), in one cache that the window's Models screen and the "Did you
 * mean" hints of a model-not-found answer share: whichever fetched it last, the other uses it.
 */
export interface GatewayModelList {
  fetchedAtMs: number;
  /** In the gateway's order. */
  ids: string[];
}

export type GatewayModelFetch = { ok: true; list: GatewayModelList } | { ok: false; errorClass: UpstreamErrorClass };

/** How long a list answers a hint before the next hint fetches it again. */
const HINT_LIST_TTL_MS = 5 * 60_000;
/** A hint holds up a failed request's answer: it waits this long for the list at most. */
const HINT_FETCH_TIMEOUT_MS = 3_000;

/**
 * Per profile, the list of the base URL it was fetched from: an edited URL is another gateway, whose
 * list replaces the old one (lists run to thousands of ids, and one kept per URL a profile ever had
 * would stay for the proxy's life).
 */
const lists = new Map<string, { baseUrl: string; list: GatewayModelList }>();

export function cachedGatewayModels(profile: { id: string; baseUrl: string }): GatewayModelList | null {
  const cached = lists.get(profile.id);
  return cached?.baseUrl === profile.baseUrl ? cached.list : null;
}

/** Fetches GET {base_url}/models with the profile's key and caches the list; a failure keeps the cached one. */
export async function fetchGatewayModels(target: UpstreamTarget, nowMs: number, timeoutMs: number): Promise<GatewayModelFetch> {
  try {
    const { statusCode, headers, bodyText } = await fetchUpstreamText({
      url: `${target.profile.baseUrl}/models`,
      method: 'GET',
      headers: { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' },
      body: null,
      signal: AbortSignal.timeout(timeoutMs),
      connectTimeoutMs: target.profile.timeouts.connectTimeoutMs,
      idleTimeoutMs: Math.min(target.profile.timeouts.idleTimeoutMs, timeoutMs),
    });
    const contentType = headers['content-type'];
    const errorClass = classifyUpstreamResponse({
      status: statusCode,
      contentType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? null,
      bodyText,
      expectJson: true,
    });
    if (errorClass !== null) return { ok: false, errorClass };
    const list = { fetchedAtMs: nowMs, ids: modelIdsFrom(bodyText, [target.apiKey]) };
    lists.set(target.profile.id, { baseUrl: target.profile.baseUrl, list });
    return { ok: true, list };
  } catch (error) {
    return { ok: false, errorClass: classifyNetworkFailure(error) };
  }
}

/** For a model-not-found error: the closest real ids, so the user can copy the right one; none when the list is out of reach. */
export async function suggestModels(target: UpstreamTarget, requestedModel: string): Promise<string[]> {
  const nowMs = Date.now();
  let list = cachedGatewayModels(target.profile);
  if (!list || nowMs - list.fetchedAtMs >= HINT_LIST_TTL_MS) {
    const fetched = await fetchGatewayModels(target, nowMs, HINT_FETCH_TIMEOUT_MS);
    if (fetched.ok) list = fetched.list;
  }
  return closestModelIds(requestedModel, list?.ids ?? []);
}

/**
 * Model ids from a GET /models body (`{ data: [{ id }] }`), in the gateway's order, with any form of
 * the key the list was fetched with masked: the window and the hints show these ids, and a gateway
 * that echoes its caller's key must not put it there.
 */
export function modelIdsFrom(bodyText: string, knownSecrets: string[]): string[] {
  try {
    const parsed = JSON.parse(bodyText) as { data?: unknown };
    if (!Array.isArray(parsed.data)) return [];
    return parsed.data.flatMap((entry) =>
      typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string'
        ? [redactKnownSecrets((entry as { id: string }).id, knownSecrets)]
        : [],
    );
  } catch {
    return [];
  }
}
