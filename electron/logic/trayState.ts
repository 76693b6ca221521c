import { showInvisible } from '../../proxy/contracts/displayText.ts';
import type { AppState } from './appState.ts';
import { profilesPhrase } from './profileNames.ts';

/**
 * The tray icon's state and tooltip. Precedence: an error (the proxy could not start, the
 * gateway rejected the key, or its account is out of balance) hides everything else because nothing works until it is fixed; then a
 * reached budget or a client the burst guard paused (requests are being refused); then paused; else serving.
 */
export type TrayIconState = 'serving' | 'paused' | 'error' | 'budget';

export const TRAY_ICON_STATES: readonly TrayIconState[] = ['serving', 'paused', 'error', 'budget'];

export function trayIconState(state: AppState): TrayIconState {
  if (state.proxy.status === 'failed' || state.keyRejectedProfileIds.length > 0 || state.quotaExhaustedProfileIds.length > 0)
    return 'error';
  if (state.budgetReachedProfileIds.length > 0 || state.pausedClients.length > 0) return 'budget';
  if (state.proxy.status === 'paused') return 'paused';
  return 'serving';
}

function activeProfileName(state: AppState): string | null {
  return state.profiles.find((profile) => profile.id === state.activeProfileId)?.name ?? null;
}

/** Names are the user's: an override in one (U+202E) is written out, so it cannot turn the words after it backwards. */
export function trayTooltip(state: AppState, productName: string): string {
  return showInvisible(tooltipText(state, productName));
}

function tooltipText(state: AppState, productName: string): string {
  const profileName = activeProfileName(state);
  const profilePart = profileName ? ` · ${profileName}` : ' · no profile';
  const proxy = state.proxy;
  switch (proxy.status) {
    case 'starting':
      return `${productName}: starting on 127.0.0.1:${proxy.port}`;
    case 'failed':
      return `${productName}: not running (${proxy.problem.detail})`;
    case 'paused':
      return `${productName}: paused${profilePart}`;
    case 'serving': {
      if (state.keyRejectedProfileIds.length > 0) return `${productName}: the gateway rejected the key${profilePart}`;
      if (state.quotaExhaustedProfileIds.length > 0)
        return `${productName}: the gateway account is out of balance, top it up${profilePart}`;
      if (state.budgetReachedProfileIds.length > 0)
        return `${productName}: budget reached (${profilesPhrase(state.profiles, state.budgetReachedProfileIds)})`;
      if (state.pausedClients.length > 0)
        return `${productName}: client ${state.pausedClients.map((client) => client.name).join(', ')} paused by the burst guard${profilePart}`;
      return `${productName}: serving on ${proxy.origin.replace('http://', '')}${profilePart}`;
    }
  }
}
