import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { composeAppState } from '../../../electron/logic/composeState.ts';
import { applyFinishedRequest, emptyTrafficState } from '../../../electron/logic/trafficState.ts';
import { buildTrayMenuModel, type MenuItemModel } from '../../../electron/logic/trayMenu.ts';
import { trayMenuTemplate } from '../../../electron/logic/trayTemplate.ts';
import { trayTooltip } from '../../../electron/logic/trayState.ts';
import { activeAlarms } from '../../../electron/logic/notifications.ts';
import type { AppState } from '../../../electron/logic/appState.ts';

const ORIGIN = 'http://127.0.0.1:8642';

/** The app state as main.ts composes it: profiles from the config, alarms from finished requests. */
function composed(
  profiles: { id: string; name: string }[],
  activeProfileId: string | null,
  failures: { profileId: string; errorClass: 'budget_exceeded' | 'auth' }[] = [],
): AppState {
  const traffic = failures.reduce(
    (state, failure) =>
      applyFinishedRequest(
        state,
        {
          profileId: failure.profileId,
          status: failure.errorClass === 'auth' ? 401 : 402,
          errorClass: failure.errorClass,
          costCredits: null,
        },
        0,
        () => 0,
      ),
    emptyTrafficState(0),
  );
  const config = { activeProfileId, profiles, clientTokens: [], settings: { notifications: true, startAtLogin: false } };
  return composeAppState({ status: 'serving', port: 8642, origin: ORIGIN }, config, traffic, [], [], []);
}

const manyProfiles = (count: number) =>
  Array.from({ length: count }, (_unused, index) => ({ id: `p${String(index + 1).padStart(2, '0')}`, name: `Team ${count - index}` }));

/** The label of an item that has one (every kind but a separator). */
function labelOf(item: MenuItemModel | undefined): string | undefined {
  return item && 'label' in item ? item.label : undefined;
}

function topLevelRadios(items: readonly MenuItemModel[]): MenuItemModel[] {
  return items.filter((item) => item.type === 'radio');
}

function radiosIn(items: readonly MenuItemModel[]): Extract<MenuItemModel, { type: 'radio' }>[] {
  return items.flatMap((item) => (item.type === 'radio' ? [item] : item.type === 'submenu' ? radiosIn(item.items) : []));
}

describe('the budget line of the tray', () => {
  const profiles = [
    { id: 'work', name: 'Work gateway' },
    { id: 'home', name: 'Home' },
  ];

  it('names the profile whose budget refused a request, not its id', () => {
    const state = composed(profiles, 'work', [{ profileId: 'work', errorClass: 'budget_exceeded' }]);
    const budget = buildTrayMenuModel(state).find((item) => item.id === 'budget');
    expect(budget).toMatchObject({ label: 'Budget reached: profile "Work gateway"' });
    expect(trayTooltip(state, 'Airlock')).toBe('Airlock: budget reached (profile "Work gateway")');
    expect(activeAlarms(state).find((alarm) => alarm.title === 'Budget reached')?.body).toBe(
      'Profile "Work gateway": requests are refused until the cap resets or you raise it.',
    );
  });

  it('lists a few names and counts the rest', () => {
    const state = composed(
      manyProfiles(5),
      'p01',
      ['p01', 'p02', 'p03', 'p04', 'p05'].map((profileId) => ({ profileId, errorClass: 'budget_exceeded' as const })),
    );
    expect(buildTrayMenuModel(state).find((item) => item.id === 'budget')).toMatchObject({
      label: 'Budget reached: profiles "Team 5", "Team 4", "Team 3" and 2 more',
    });
  });

  it('shows an ampersand and writes out a bidi override in a name, in the menu, the tooltip and the notification', () => {
    const state = composed([{ id: 'rd', name: 'R&D \u202Eevil' }], 'rd', [{ profileId: 'rd', errorClass: 'budget_exceeded' }]);
    const template = trayMenuTemplate(buildTrayMenuModel(state), () => undefined);
    const labelOf = (id: string) => template.find((item: MenuItemConstructorOptions) => item.id === id)?.label;
    expect(labelOf('budget')).toBe('Budget reached: profile "R&&D ⟨U+202E⟩evil"');
    expect(labelOf('profile:rd')).toBe('R&&D ⟨U+202E⟩evil');
    expect(trayTooltip(state, 'Airlock')).toBe('Airlock: budget reached (profile "R&D ⟨U+202E⟩evil")');
    expect(
      activeAlarms(state)
        .map((alarm) => alarm.body)
        .join('\n'),
    ).not.toContain('\u202E');
  });

  it('falls back to the id for a profile removed since', () => {
    const state = { ...composed(profiles, 'work', [{ profileId: 'gone', errorClass: 'budget_exceeded' }]) };
    expect(buildTrayMenuModel(state).find((item) => item.id === 'budget')).toMatchObject({ label: 'Budget reached: profile "gone"' });
  });
});

describe('the profile list of the tray', () => {
  it('keeps a short list in the menu, in the config order', () => {
    const state = composed(manyProfiles(8), 'p03');
    const radios = topLevelRadios(buildTrayMenuModel(state));
    expect(radios.map((item) => item.id)).toEqual(manyProfiles(8).map((profile) => `profile:${profile.id}`));
    expect(buildTrayMenuModel(state).some((item) => item.type === 'submenu' && item.id === 'profiles-more')).toBe(false);
  });

  it('with 50 profiles, keeps the active one in the menu and the others in a submenu sorted by name, split into ranges', () => {
    const state = composed(manyProfiles(50), 'p10', [{ profileId: 'p20', errorClass: 'auth' }]);
    const items = buildTrayMenuModel(state);
    expect(topLevelRadios(items)).toEqual([
      {
        type: 'radio',
        id: 'profile:p10',
        label: 'Team 41',
        checked: true,
        enabled: true,
        action: { kind: 'selectProfile', profileId: 'p10' },
      },
    ]);
    const more = items.find((item) => item.id === 'profiles-more');
    if (more?.type !== 'submenu') throw new Error('no submenu of profiles');
    expect(more.label).toBe('Other profiles (49, 1 with a problem)');
    expect(more.items.map(labelOf)).toEqual(['Team 1 – Team 20', 'Team 21 – Team 40', 'Team 42 – Team 50']);
    const switchable = radiosIn(more.items);
    expect(switchable).toHaveLength(49);
    // Sorted as people read numbers ("Team 2" before "Team 10"), each a switch to its own profile.
    expect(switchable.slice(0, 3).map((item) => item.label)).toEqual(['Team 1', 'Team 2', 'Team 3']);
    expect(switchable.find((item) => item.id === 'profile:p20')).toMatchObject({ label: 'Team 31 (key rejected)', checked: false });
    expect(switchable.every((item) => item.action.kind === 'selectProfile' && item.id === `profile:${item.action.profileId}`)).toBe(true);
  });

  it('a submenu short enough for a screen is not split', () => {
    const more = buildTrayMenuModel(composed(manyProfiles(15), 'p01')).find((item) => item.id === 'profiles-more');
    expect(more).toMatchObject({ label: 'Other profiles (14)' });
    expect(more?.type === 'submenu' && more.items.every((item) => item.type === 'radio')).toBe(true);
  });

  it('without an active profile, offers them all to choose from', () => {
    const items = buildTrayMenuModel(composed(manyProfiles(12), null));
    expect(topLevelRadios(items)).toEqual([]);
    expect(items.find((item) => item.id === 'profiles-more')).toMatchObject({ label: 'Choose a profile (12)' });
  });

  it('labels a range by the start of its end names, without splitting a character', () => {
    const long = Array.from({ length: 30 }, (_unused, index) => ({
      id: `l${index}`,
      name: `${String.fromCharCode(65 + (index % 26))}${index} 👩‍👩‍👧 family gateway with a long name`,
    }));
    const more = buildTrayMenuModel(composed(long, null)).find((item) => item.id === 'profiles-more');
    if (more?.type !== 'submenu') throw new Error('no submenu of profiles');
    expect(labelOf(more.items[0])).toBe('A0 👩‍👩‍👧 family gate… – P15 👩‍👩‍👧 family gat…');
  });

  it('gives every item of the whole menu its own id', () => {
    const ids: string[] = [];
    const collect = (items: readonly MenuItemModel[]) => {
      for (const item of items) {
        ids.push(item.id);
        if (item.type === 'submenu') collect(item.items);
      }
    };
    collect(buildTrayMenuModel(composed(manyProfiles(50), 'p10')));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
