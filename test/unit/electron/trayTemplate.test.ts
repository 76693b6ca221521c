import { describe, expect, it } from 'vitest';
import { trayMenuTemplate } from '../../../electron/logic/trayTemplate.ts';
import { buildTrayMenuModel, type TrayAction } from '../../../electron/logic/trayMenu.ts';
import { appState } from './appStateFixture.ts';

type TemplateItem = ReturnType<typeof trayMenuTemplate>[number];

function labelOf(items: readonly TemplateItem[], id: string): string | undefined {
  return items.find((item) => item.id === id)?.label;
}

describe('trayMenuTemplate', () => {
  // Electron reads a single & in a menu label as a mnemonic marker and hides it (Windows and Linux
  // underline the next letter, macOS drops it); && shows one & (electron/electron#9584, #9978, docs PR #27770).
  it('shows an & in a profile name as written instead of swallowing it as a mnemonic', () => {
    const state = appState({ profiles: [{ id: 'rd', name: 'R&D gateway' }], activeProfileId: 'rd' });
    const template = trayMenuTemplate(buildTrayMenuModel(state), () => undefined);
    expect(labelOf(template, 'profile:rd')).toBe('R&&D gateway');
  });

  it('escapes & in labels of every kind, submenus included', () => {
    const template = trayMenuTemplate(
      [
        { type: 'label', id: 'l', label: 'a & b' },
        {
          type: 'submenu',
          id: 's',
          label: 'x&y',
          items: [{ type: 'action', id: 'c', label: 'c&&d', enabled: true, action: { kind: 'quit' } }],
        },
      ],
      () => undefined,
    );
    expect(labelOf(template, 'l')).toBe('a && b');
    expect(labelOf(template, 's')).toBe('x&&y');
    const submenu = template.find((item) => item.id === 's')?.submenu as TemplateItem[];
    expect(labelOf(submenu, 'c')).toBe('c&&&&d');
  });

  it('writes out a right-to-left override in a profile name so it cannot reverse the words after it', () => {
    const state = appState({ profiles: [{ id: 'evil', name: 'abc\u202Edef' }], keyRejectedProfileIds: ['evil'], activeProfileId: 'evil' });
    const template = trayMenuTemplate(buildTrayMenuModel(state), () => undefined);
    expect(labelOf(template, 'profile:evil')).toBe('abc⟨U+202E⟩def (key rejected)');
  });

  it('keeps a right-to-left name readable as it is (letters are not controls)', () => {
    const state = appState({ profiles: [{ id: 'he', name: 'שער ראשי' }], activeProfileId: 'he' });
    expect(
      labelOf(
        trayMenuTemplate(buildTrayMenuModel(state), () => undefined),
        'profile:he',
      ),
    ).toBe('שער ראשי');
  });

  it('calls back with the item action on click', () => {
    const clicked: TrayAction[] = [];
    const template = trayMenuTemplate(buildTrayMenuModel(appState()), (action) => clicked.push(action));
    const click = template.find((item) => item.id === 'profile:backup')?.click as (() => void) | undefined;
    click?.();
    expect(clicked).toEqual([{ kind: 'selectProfile', profileId: 'backup' }]);
  });
});
