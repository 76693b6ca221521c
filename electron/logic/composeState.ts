import type { BudgetProgress } from '../../proxy/contracts/spend.ts';
import type { AppState } from './appState.ts';
import type { TrafficState } from './trafficState.ts';

/** The parts of the config file the tray shows (structurally a subset of ConfigFile). */
export interface ConfigView {
  activeProfileId: string | null;
  profiles: readonly { id: string; name: string }[];
  clientTokens: readonly unknown[];
  settings: { notifications: boolean; startAtLogin: boolean };
}

/**
 * The app state from its sources: proxy status, the config snapshot, the traffic seen so far, the
 * tools found, the caps' progress and the clients the burst guard paused.
 */
export function composeAppState(
  proxy: AppState['proxy'],
  config: ConfigView,
  traffic: TrafficState,
  connectTools: AppState['connectTools'],
  budgets: readonly BudgetProgress[],
  pausedClients: AppState['pausedClients'],
): AppState {
  return {
    proxy,
    profiles: config.profiles.map((profile) => ({ id: profile.id, name: profile.name })),
    activeProfileId: config.activeProfileId,
    todaySpendCredits: traffic.todaySpendCredits,
    keyRejectedProfileIds: traffic.keyRejectedProfileIds,
    quotaExhaustedProfileIds: traffic.quotaExhaustedProfileIds,
    budgetReachedProfileIds: traffic.budgetReachedProfileIds,
    pausedClients,
    hasClientToken: config.clientTokens.length > 0,
    startAtLogin: config.settings.startAtLogin,
    notificationsEnabled: config.settings.notifications,
    connectTools,
    budgetAlerts: budgets.flatMap(({ scope, subject, period, alertPercent, spentCredits, capCredits }) =>
      alertPercent === null ? [] : [{ scope, subject, period, percent: alertPercent, spentCredits, capCredits }],
    ),
  };
}

/** `AIRLOCK_PORT` overrides the default port (0 picks a free one: tests only). */
export function portFromEnv(value: string | undefined, defaultPort: number): number {
  if (value === undefined || value.trim() === '') return defaultPort;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError(`AIRLOCK_PORT must be a port number (0-65535), got ${JSON.stringify(value)}`);
  return port;
}
