import { describe, expect, it } from 'vitest';
import { buildConnectSubmenu, summarizeConnectTools, type ConnectToolSummary } from '../../../electron/logic/connectMenu.ts';
import { buildTrayMenuModel, type MenuItemModel } from '../../../electron/logic/trayMenu.ts';
import type { AppState } from '../../../electron/logic/appState.ts';
import { appState } from './appStateFixture.ts';

function tool(overrides: Partial<ConnectToolSummary> & Pick<ConnectToolSummary, 'id' | 'title'>): ConnectToolSummary {
  return { detected: true, connected: false, canUndo: false, problem: false, ...overrides };
}

function submenuItems(state: AppState): MenuItemModel[] {
  const menu = buildConnectSubmenu(state);
  if (menu.type !== 'submenu') throw new Error('not a submenu');
  return menu.items;
}

const brief = (items: MenuItemModel[]) =>
  items.map((item) =>
    item.type === 'action' ? [item.id, item.label, item.enabled] : item.type === 'label' ? [item.id, item.label] : [item.id],
  );

describe('the tray Connect submenu', () => {
  it.each<[string, ConnectToolSummary[], AppState['proxy'], unknown[]]>([
    [
      'lists found tools, not the others',
      [tool({ id: 'claude-code', title: 'Claude Code' }), tool({ id: 'aider', title: 'aider', detected: false })],
      { status: 'serving', port: 8642, origin: 'http://127.0.0.1:8642' },
      [
        ['connect:claude-code', 'Set up Claude Code to use Airlock', true],
        ['connect-sep-window'],
        ['connect-open-window', 'Preview and set up tools in the window…', true],
      ],
    ],
    [
      'a connected tool is marked and offers its undo',
      [tool({ id: 'codex', title: 'Codex CLI', connected: true, canUndo: true })],
      { status: 'serving', port: 8642, origin: 'http://127.0.0.1:8642' },
      [
        ['connect:codex', 'Codex CLI ✓ uses Airlock', false],
        ['connect-undo:codex', 'Undo the Codex CLI setup', true],
        ['connect-sep-window'],
        ['connect-open-window', 'Preview and set up tools in the window…', true],
      ],
    ],
    [
      'a tool whose file does not parse sends the user to the window',
      [tool({ id: 'opencode', title: 'OpenCode', problem: true })],
      { status: 'serving', port: 8642, origin: 'http://127.0.0.1:8642' },
      [
        ['connect:opencode', 'OpenCode: its config cannot be edited (see the window)'],
        ['connect-sep-window'],
        ['connect-open-window', 'Preview and set up tools in the window…', true],
      ],
    ],
    [
      'setting up waits for the proxy to listen (the file names its port)',
      [tool({ id: 'aider', title: 'aider' })],
      { status: 'starting', port: 8642 },
      [
        ['connect:aider', 'Set up aider to use Airlock', false],
        ['connect-sep-window'],
        ['connect-open-window', 'Preview and set up tools in the window…', true],
      ],
    ],
    [
      'says so when no tool was found',
      [tool({ id: 'aider', title: 'aider', detected: false })],
      { status: 'serving', port: 8642, origin: 'http://127.0.0.1:8642' },
      [
        ['connect-none', 'No tool config found on this computer'],
        ['connect-sep-window'],
        ['connect-open-window', 'Preview and set up tools in the window…', true],
      ],
    ],
  ])('%s', (_name, connectTools, proxy, expected) => {
    expect(brief(submenuItems(appState({ connectTools, proxy })))).toEqual(expected);
  });

  it('carries the tool in the actions main.ts runs', () => {
    const items = submenuItems(appState({ connectTools: [tool({ id: 'codex', title: 'Codex CLI', canUndo: true })] }));
    const actions = items.flatMap((item) => (item.type === 'action' ? [item.action] : []));
    expect(actions).toEqual([{ kind: 'connectTool', tool: 'codex' }, { kind: 'undoConnect', tool: 'codex' }, { kind: 'openWindow' }]);
  });

  it('sits in the tray menu after the copy items', () => {
    const ids = buildTrayMenuModel(appState()).map((item) => item.id);
    expect(ids.indexOf('connect')).toBe(ids.indexOf('copy-client-token') + 1);
  });

  it('summarizes the service status: undo when a backup exists, a problem as a flag', () => {
    expect(
      summarizeConnectTools([
        { id: 'codex', title: 'Codex CLI', detected: true, connected: true, backups: [{ id: 'b' }], problem: null },
        { id: 'aider', title: 'aider', detected: true, connected: false, backups: [], problem: 'bad YAML' },
      ]),
    ).toEqual([
      { id: 'codex', title: 'Codex CLI', detected: true, connected: true, canUndo: true, problem: false },
      { id: 'aider', title: 'aider', detected: true, connected: false, canUndo: false, problem: true },
    ]);
  });
});
