import type { Profile } from '../contracts/profile.ts';

/**
 * The gateway model id for the model a client asked for: an exact alias first, then the first
 * wildcard route that matches (`*` = any run of characters, case-insensitive), else unchanged.
 */
export function resolveUpstreamModel(profile: Pick<Profile, 'modelAliases' | 'modelRoutes'>, requestedModel: string): string {
  const alias = Object.hasOwn(profile.modelAliases, requestedModel) ? profile.modelAliases[requestedModel] : undefined;
  if (alias !== undefined) return alias;
  const route = profile.modelRoutes.find((candidate) => wildcardPattern(candidate.pattern).test(requestedModel));
  return route ? route.target : requestedModel;
}

function wildcardPattern(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, 'i');
}
