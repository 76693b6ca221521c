import type { ConnectToolId } from '../../proxy/contracts/connect.ts';
import type { AppState } from './appState.ts';
import type { MenuItemModel } from './trayMenu.ts';

/**
 * The tray's "Connect" submenu: one entry per tool whose config was found (or that Airlock has set
 * up), to write its config in one click or undo that; other tools are set up from the window.
 */
export function buildConnectSubmenu(state: AppState): MenuItemModel {
  const serving = state.proxy.status === 'serving' || state.proxy.status === 'paused';
  const shown = state.connectTools.filter((tool) => tool.detected || tool.canUndo);
  const items: MenuItemModel[] = [];
  for (const tool of shown) items.push(...toolItems(tool, serving));
  if (shown.length === 0) items.push({ type: 'label', id: 'connect-none', label: 'No tool config found on this computer' });
  items.push(
    { type: 'separator', id: 'connect-sep-window' },
    {
      type: 'action',
      id: 'connect-open-window',
      label: 'Preview and set up tools in the window…',
      enabled: true,
      action: { kind: 'openWindow' },
    },
  );
  return { type: 'submenu', id: 'connect', label: 'Connect', items };
}

function toolItems(tool: AppState['connectTools'][number], serving: boolean): MenuItemModel[] {
  const items: MenuItemModel[] = [];
  if (tool.problem) {
    items.push({ type: 'label', id: `connect:${tool.id}`, label: `${tool.title}: its config cannot be edited (see the window)` });
  } else {
    items.push({
      type: 'action',
      id: `connect:${tool.id}`,
      label: tool.connected ? `${tool.title} ✓ uses Airlock` : `Set up ${tool.title} to use Airlock`,
      // Writing needs the port the proxy listens on; re-running a done setup changes nothing.
      enabled: serving && !tool.connected,
      action: { kind: 'connectTool', tool: tool.id },
    });
  }
  if (tool.canUndo) {
    items.push({
      type: 'action',
      id: `connect-undo:${tool.id}`,
      label: `Undo the ${tool.title} setup`,
      enabled: true,
      action: { kind: 'undoConnect', tool: tool.id },
    });
  }
  return items;
}

/** What the tray keeps of a tool's Connect status (ConnectToolStatus without paths and backups). */
export interface ConnectToolSummary {
  id: ConnectToolId;
  title: string;
  detected: boolean;
  connected: boolean;
  canUndo: boolean;
  problem: boolean;
}

export function summarizeConnectTools(
  tools: readonly {
    id: ConnectToolId;
    title: string;
    detected: boolean;
    connected: boolean;
    backups: readonly unknown[];
    problem: string | null;
  }[],
): ConnectToolSummary[] {
  return tools.map((tool) => ({
    id: tool.id,
    title: tool.title,
    detected: tool.detected,
    connected: tool.connected,
    canUndo: tool.backups.length > 0,
    problem: tool.problem !== null,
  }));
}
