import { describe, expect, it } from 'vitest';
import { buildTrayMenuModel, type MenuItemModel } from '../../../electron/logic/trayMenu.ts';
import { appState, ORIGIN } from './appStateFixture.ts';

function item(items: MenuItemModel[], id: string): MenuItemModel {
  const found = items.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no menu item ${id}`);
  return found;
}

function label(items: MenuItemModel[], id: string): string {
  const found = item(items, id);
  return 'label' in found ? found.label : '';
}

describe('buildTrayMenuModel', () => {
  it('lists the profiles as a radio list with the active one checked and a switch action each', () => {
    const radios = buildTrayMenuModel(appState({ activeProfileId: 'backup' })).filter((entry) => entry.type === 'radio');
    expect(radios).toEqual([
      {
        type: 'radio',
        id: 'profile:main',
        label: 'Main gateway',
        checked: false,
        enabled: true,
        action: { kind: 'selectProfile', profileId: 'main' },
      },
      {
        type: 'radio',
        id: 'profile:backup',
        label: 'Backup',
        checked: true,
        enabled: true,
        action: { kind: 'selectProfile', profileId: 'backup' },
      },
    ]);
  });

  it.each([
    [{ proxy: { status: 'serving' as const, port: 8642, origin: ORIGIN } }, 'Serving on 127.0.0.1:8642'],
    [{ proxy: { status: 'paused' as const, port: 8642, origin: ORIGIN } }, 'Paused on 127.0.0.1:8642'],
    [{ proxy: { status: 'starting' as const, port: 8642 } }, 'Starting on 127.0.0.1:8642…'],
    [
      {
        proxy: {
          status: 'failed' as const,
          port: 8642,
          problem: { kind: 'port_in_use' as const, detail: 'port 8642 on 127.0.0.1 is already in use' },
        },
      },
      'Not running: port 8642 on 127.0.0.1 is already in use',
    ],
  ])('shows the address line %#', (overrides, expected) => {
    expect(label(buildTrayMenuModel(appState(overrides)), 'address')).toBe(expected);
  });

  it.each([
    [12.5, 'Today: 12.5 credits (¥9.38)'],
    [0, 'Today: 0 credits (¥0.00)'],
    [0.1234, 'Today: 0.1234 credits (¥0.09)'],
    [0.000042, 'Today: 0.000042 credits (<¥0.01)'],
    [null, 'Today: spend unknown'],
  ])('shows today’s spend %s in credits and CNY', (credits, expected) => {
    expect(label(buildTrayMenuModel(appState({ todaySpendCredits: credits })), 'spend-today')).toBe(expected);
  });

  it('copies the OpenAI base URL with /v1 and the Anthropic one without', () => {
    const items = buildTrayMenuModel(appState());
    expect(item(items, 'copy-openai-base-url')).toMatchObject({
      enabled: true,
      action: { kind: 'copyText', text: 'http://127.0.0.1:8642/v1' },
    });
    expect(item(items, 'copy-anthropic-base-url')).toMatchObject({
      enabled: true,
      action: { kind: 'copyText', text: 'http://127.0.0.1:8642' },
    });
    expect(item(items, 'copy-client-token')).toMatchObject({ enabled: true, action: { kind: 'copyClientToken' } });
  });

  it('disables copying while nothing is served or no client token exists', () => {
    const items = buildTrayMenuModel(appState({ proxy: { status: 'starting', port: 8642 }, hasClientToken: false }));
    expect(item(items, 'copy-openai-base-url')).toMatchObject({ enabled: false });
    expect(item(items, 'copy-anthropic-base-url')).toMatchObject({ enabled: false });
    expect(item(items, 'copy-client-token')).toMatchObject({ enabled: false });
  });

  it.each([
    [
      'serving',
      { status: 'serving' as const, port: 8642, origin: ORIGIN },
      { label: 'Pause proxy', enabled: true, action: { kind: 'setPaused', paused: true } },
    ],
    [
      'paused',
      { status: 'paused' as const, port: 8642, origin: ORIGIN },
      { label: 'Resume proxy', enabled: true, action: { kind: 'setPaused', paused: false } },
    ],
    ['failed', { status: 'failed' as const, port: 8642, problem: { kind: 'unknown' as const, detail: 'x' } }, { enabled: false }],
  ])('pause item while %s', (_name, proxy, expected) => {
    expect(item(buildTrayMenuModel(appState({ proxy })), 'pause-resume')).toMatchObject(expected);
  });

  it.each([true, false])('start at login is a checkbox reflecting %s that toggles it', (enabled) => {
    expect(item(buildTrayMenuModel(appState({ startAtLogin: enabled })), 'start-at-login')).toEqual({
      type: 'checkbox',
      id: 'start-at-login',
      label: 'Start at login',
      checked: enabled,
      action: { kind: 'setStartAtLogin', enabled: !enabled },
    });
  });

  it('marks a profile whose key was rejected and shows reached budgets', () => {
    const items = buildTrayMenuModel(appState({ keyRejectedProfileIds: ['backup'], budgetReachedProfileIds: ['main'] }));
    expect(label(items, 'profile:backup')).toBe('Backup (key rejected)');
    expect(label(items, 'budget')).toBe('Budget reached: profile "Main gateway"');
  });

  it('marks a profile whose gateway account is out of balance, beside the rejected-key mark', () => {
    const items = buildTrayMenuModel(appState({ quotaExhaustedProfileIds: ['main'], keyRejectedProfileIds: ['backup'] }));
    expect(label(items, 'profile:main')).toBe('Main gateway (out of balance: top it up)');
    expect(label(items, 'profile:backup')).toBe('Backup (key rejected)');
  });

  it('shows each client the burst guard paused, with the way to resume it', () => {
    const items = buildTrayMenuModel(appState({ pausedClients: [{ name: 'claude-code', reason: '40 requests in 10 s' }] }));
    expect(item(items, 'client-paused:claude-code')).toEqual({
      type: 'action',
      id: 'client-paused:claude-code',
      label: 'Client claude-code paused (40 requests in 10 s): open Airlock to resume',
      enabled: true,
      action: { kind: 'openWindow' },
    });
  });

  it('explains an empty profile list instead of showing nothing', () => {
    const items = buildTrayMenuModel(appState({ profiles: [], activeProfileId: null }));
    expect(items.some((entry) => entry.type === 'radio')).toBe(false);
    expect(label(items, 'profiles-empty')).toMatch(/open the window/);
  });

  it('always ends with pause, open window, start at login and quit, and ids are unique', () => {
    const items = buildTrayMenuModel(appState());
    expect(items.slice(-5).map((entry) => entry.id)).toEqual(['pause-resume', 'open-window', 'start-at-login', 'sep-quit', 'quit']);
    expect(new Set(items.map((entry) => entry.id)).size).toBe(items.length);
  });
});
