import type { AppState } from '../../../electron/logic/appState.ts';

export const ORIGIN = 'http://127.0.0.1:8642';

/** A serving app with two profiles, 'main' active; tests override what they vary. */
export function appState(overrides: Partial<AppState> = {}): AppState {
  return {
    proxy: { status: 'serving', port: 8642, origin: ORIGIN },
    profiles: [
      { id: 'main', name: 'Main gateway' },
      { id: 'backup', name: 'Backup' },
    ],
    activeProfileId: 'main',
    todaySpendCredits: 12.5,
    keyRejectedProfileIds: [],
    quotaExhaustedProfileIds: [],
    budgetReachedProfileIds: [],
    pausedClients: [],
    hasClientToken: true,
    startAtLogin: false,
    notificationsEnabled: true,
    connectTools: [],
    budgetAlerts: [],
    ...overrides,
  };
}
