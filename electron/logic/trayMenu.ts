import { toCny } from '../../proxy/spend/constants.ts';
import { formatCredits, formatMoney } from '../../proxy/contracts/amounts.ts';
import type { ConnectToolId } from '../../proxy/contracts/connect.ts';
import type { AppState } from './appState.ts';
import { buildConnectSubmenu } from './connectMenu.ts';
import { profilesPhrase } from './profileNames.ts';
import { profileItems } from './trayProfiles.ts';

/**
 * The tray menu as data: a pure function of the app state, cheap enough to rebuild on every state
 * change. The Electron adapter maps each item to a MenuItem and each action to a handler.
 */
export type TrayAction =
  | { kind: 'selectProfile'; profileId: string }
  | { kind: 'copyText'; text: string }
  | { kind: 'copyClientToken' }
  | { kind: 'setPaused'; paused: boolean }
  | { kind: 'openWindow' }
  | { kind: 'setStartAtLogin'; enabled: boolean }
  | { kind: 'connectTool'; tool: ConnectToolId }
  | { kind: 'undoConnect'; tool: ConnectToolId }
  | { kind: 'quit' };

export type MenuItemModel =
  | { type: 'label'; id: string; label: string }
  | { type: 'separator'; id: string }
  | { type: 'action'; id: string; label: string; enabled: boolean; action: TrayAction }
  | { type: 'radio'; id: string; label: string; checked: boolean; enabled: boolean; action: TrayAction }
  | { type: 'checkbox'; id: string; label: string; checked: boolean; action: TrayAction }
  | { type: 'submenu'; id: string; label: string; items: MenuItemModel[] };

/** Base URL forms clients expect: OpenAI-style SDKs want `/v1`, Anthropic-style ones the root. */
export function openAiBaseUrl(proxyOrigin: string): string {
  return `${proxyOrigin}/v1`;
}

export function anthropicBaseUrl(proxyOrigin: string): string {
  return proxyOrigin;
}

function addressItem(state: AppState): MenuItemModel {
  const proxy = state.proxy;
  const label =
    proxy.status === 'starting'
      ? `Starting on 127.0.0.1:${proxy.port}…`
      : proxy.status === 'failed'
        ? `Not running: ${proxy.problem.detail}`
        : `${proxy.status === 'paused' ? 'Paused' : 'Serving'} on ${proxy.origin.replace('http://', '')}`;
  return { type: 'label', id: 'address', label };
}

/** A paused client's agent gets refusals until someone resumes it, which only the window does. */
function pausedClientItems(state: AppState): MenuItemModel[] {
  return state.pausedClients.map((client) => ({
    type: 'action' as const,
    id: `client-paused:${client.name}`,
    label: `Client ${client.name} paused (${client.reason}): open Airlock to resume`,
    enabled: true,
    action: { kind: 'openWindow' as const },
  }));
}

function spendItem(state: AppState): MenuItemModel {
  const credits = state.todaySpendCredits;
  const label =
    credits === null ? 'Today: spend unknown' : `Today: ${formatCredits(credits)} credits (${formatMoney(toCny(credits), 'CNY')})`;
  return { type: 'label', id: 'spend-today', label };
}

function copyItems(state: AppState): MenuItemModel[] {
  const proxy = state.proxy;
  const origin = proxy.status === 'serving' || proxy.status === 'paused' ? proxy.origin : null;
  return [
    {
      type: 'action',
      id: 'copy-openai-base-url',
      label: origin ? `Copy OpenAI base URL (${openAiBaseUrl(origin)})` : 'Copy OpenAI base URL',
      enabled: origin !== null,
      action: { kind: 'copyText', text: origin ? openAiBaseUrl(origin) : '' },
    },
    {
      type: 'action',
      id: 'copy-anthropic-base-url',
      label: origin ? `Copy Anthropic base URL (${anthropicBaseUrl(origin)})` : 'Copy Anthropic base URL',
      enabled: origin !== null,
      action: { kind: 'copyText', text: origin ? anthropicBaseUrl(origin) : '' },
    },
    {
      type: 'action',
      id: 'copy-client-token',
      label: state.hasClientToken ? 'Copy client token' : 'Copy client token (none yet: create one in the window)',
      enabled: state.hasClientToken,
      action: { kind: 'copyClientToken' },
    },
  ];
}

function pauseItem(state: AppState): MenuItemModel {
  const status = state.proxy.status;
  const paused = status === 'paused';
  return {
    type: 'action',
    id: 'pause-resume',
    label: paused ? 'Resume proxy' : 'Pause proxy',
    enabled: status === 'serving' || status === 'paused',
    action: { kind: 'setPaused', paused: !paused },
  };
}

export function buildTrayMenuModel(state: AppState): MenuItemModel[] {
  return [
    addressItem(state),
    ...(state.budgetReachedProfileIds.length > 0
      ? [
          {
            type: 'label' as const,
            id: 'budget',
            label: `Budget reached: ${profilesPhrase(state.profiles, state.budgetReachedProfileIds)}`,
          },
        ]
      : []),
    ...pausedClientItems(state),
    { type: 'separator', id: 'sep-profiles' },
    ...profileItems(state),
    { type: 'separator', id: 'sep-spend' },
    spendItem(state),
    { type: 'separator', id: 'sep-copy' },
    ...copyItems(state),
    buildConnectSubmenu(state),
    { type: 'separator', id: 'sep-control' },
    pauseItem(state),
    { type: 'action', id: 'open-window', label: 'Open Airlock', enabled: true, action: { kind: 'openWindow' } },
    {
      type: 'checkbox',
      id: 'start-at-login',
      label: 'Start at login',
      checked: state.startAtLogin,
      action: { kind: 'setStartAtLogin', enabled: !state.startAtLogin },
    },
    { type: 'separator', id: 'sep-quit' },
    { type: 'action', id: 'quit', label: 'Quit Airlock', enabled: true, action: { kind: 'quit' } },
  ];
}
