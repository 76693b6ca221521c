import type { ModelRoute } from '../contracts/profile.ts';

/**
 * Maps the model a client names to the gateway's model id. Order: an exact alias, then the first
 * wildcard route that matches, then the client token's default, else the name as sent.
 *
 * The token default applies only when the request names no model. A named model that nothing maps
 * is forwarded as-is: the gateway's "model not found" then tells the user to add an alias or route,
 * instead of Airlock silently answering with a different (possibly dearer) model. A catch-all
 * route (`*`) gives the other behaviour explicitly.
 */

export type ModelRoutingRule = 'alias' | 'route' | 'client-default' | 'as-is';

export interface ModelRoutingInput {
  requestedModel: string | null;
  aliases: Record<string, string>;
  routes: readonly ModelRoute[];
  clientDefaultModel?: string | null;
}

export interface ModelRoutingResult {
  upstreamModel: string | null;
  rule: ModelRoutingRule;
}

export function resolveUpstreamModel(input: ModelRoutingInput): ModelRoutingResult {
  const requested = input.requestedModel === null || input.requestedModel === '' ? null : input.requestedModel;
  if (requested === null) {
    const fallback = input.clientDefaultModel ?? null;
    return fallback ? { upstreamModel: fallback, rule: 'client-default' } : { upstreamModel: null, rule: 'as-is' };
  }
  if (Object.hasOwn(input.aliases, requested)) {
    const target = input.aliases[requested];
    if (target !== undefined) return { upstreamModel: target, rule: 'alias' };
  }
  const route = input.routes.find((candidate) => wildcardMatches(candidate.pattern, requested));
  if (route) return { upstreamModel: route.target, rule: 'route' };
  return { upstreamModel: requested, rule: 'as-is' };
}

/** `*` matches any run of characters (also none); the whole name must match, ignoring case. */
export function wildcardMatches(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((literal) => literal.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 'is').test(name);
}
