import type { AppState, ProfileSummary } from './appState.ts';
import type { MenuItemModel } from './trayMenu.ts';

/** Up to this many profiles the menu lists them itself, in the config's order. */
const MAX_PROFILES_INLINE = 8;
/** About a laptop screen's height of menu items; a longer list is split into ranges of names. */
const MAX_PROFILES_PER_SUBMENU = 20;
/** How much of a name a range's label shows at each end. */
const RANGE_END_GRAPHEMES = 16;

const byName = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function profileLabel(state: AppState, profile: ProfileSummary): string {
  const marks = [
    ...(state.keyRejectedProfileIds.includes(profile.id) ? ['key rejected'] : []),
    ...(state.quotaExhaustedProfileIds.includes(profile.id) ? ['out of balance: top it up'] : []),
  ];
  return marks.length === 0 ? profile.name : `${profile.name} (${marks.join('; ')})`;
}

function hasProblem(state: AppState, profile: ProfileSummary): boolean {
  return state.keyRejectedProfileIds.includes(profile.id) || state.quotaExhaustedProfileIds.includes(profile.id);
}

function radioItem(state: AppState, profile: ProfileSummary): MenuItemModel {
  return {
    type: 'radio',
    id: `profile:${profile.id}`,
    label: profileLabel(state, profile),
    checked: profile.id === state.activeProfileId,
    enabled: true,
    action: { kind: 'selectProfile', profileId: profile.id },
  };
}

/** A name cut to its first few characters as the user sees them (an emoji or an accent is never split). */
function shortName(name: string): string {
  const parts = Array.from(graphemes.segment(name), (part) => part.segment);
  return parts.length <= RANGE_END_GRAPHEMES ? name : `${parts.slice(0, RANGE_END_GRAPHEMES).join('')}…`;
}

/** Consecutive ranges of at most MAX_PROFILES_PER_SUBMENU, each labelled by its first and last name. */
function rangeSubmenus(state: AppState, sorted: readonly ProfileSummary[]): MenuItemModel[] {
  const ranges: MenuItemModel[] = [];
  for (let start = 0; start < sorted.length; start += MAX_PROFILES_PER_SUBMENU) {
    const range = sorted.slice(start, start + MAX_PROFILES_PER_SUBMENU);
    const first = range[0]!;
    const last = range[range.length - 1]!;
    ranges.push({
      type: 'submenu',
      id: `profiles-range:${first.id}`,
      label: range.length === 1 ? shortName(first.name) : `${shortName(first.name)} – ${shortName(last.name)}`,
      items: range.map((profile) => radioItem(state, profile)),
    });
  }
  return ranges;
}

/**
 * The profiles as radio items to switch with. A short list is in the menu itself, in the config's
 * order. A long one would push the rest of the menu off the screen: the active profile stays in the
 * menu, the others go to a submenu sorted by name (split into ranges when it too would be longer than
 * a screen), whose label counts them and those with a problem, which the tray icon shows too.
 */
export function profileItems(state: AppState): MenuItemModel[] {
  if (state.profiles.length === 0) return [{ type: 'label', id: 'profiles-empty', label: 'No profiles yet: open the window to add one' }];
  if (state.profiles.length <= MAX_PROFILES_INLINE) return state.profiles.map((profile) => radioItem(state, profile));
  const active = state.profiles.find((profile) => profile.id === state.activeProfileId);
  const others = state.profiles
    .filter((profile) => profile !== active)
    .sort((a, b) => byName.compare(a.name, b.name) || byName.compare(a.id, b.id));
  const withProblem = others.filter((profile) => hasProblem(state, profile)).length;
  const counts = `${others.length}${withProblem > 0 ? `, ${withProblem} with a problem` : ''}`;
  const submenu: MenuItemModel = {
    type: 'submenu',
    id: 'profiles-more',
    label: `${active ? 'Other profiles' : 'Choose a profile'} (${counts})`,
    items: others.length <= MAX_PROFILES_PER_SUBMENU ? others.map((profile) => radioItem(state, profile)) : rangeSubmenus(state, others),
  };
  return active ? [radioItem(state, active), submenu] : [submenu];
}
