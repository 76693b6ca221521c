import type { ProfileSummary } from './appState.ts';

/** At most this many names in one line of the tray or a notification; the rest are counted. */
const MAX_NAMES_LISTED = 3;

/** The name the user gave the profile; its id only when the profile is gone from the config. */
export function profileName(profiles: readonly ProfileSummary[], profileId: string): string {
  return profiles.find((profile) => profile.id === profileId)?.name ?? profileId;
}

/** `profile "Work"`, `profiles "Work", "Home" and 2 more`: the profiles' names, quoted, as one short phrase. */
export function profilesPhrase(profiles: readonly ProfileSummary[], profileIds: readonly string[]): string {
  const quoted = profileIds.slice(0, MAX_NAMES_LISTED).map((profileId) => `"${profileName(profiles, profileId)}"`);
  const more = profileIds.length - quoted.length;
  return `${profileIds.length === 1 ? 'profile' : 'profiles'} ${quoted.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
