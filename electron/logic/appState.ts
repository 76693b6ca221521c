import type { BudgetAlertPercent } from '../../proxy/contracts/spend.ts';
import type { ConnectToolSummary } from './connectMenu.ts';

/**
 * The desktop app's state as the tray, the notifications and the window's fallback page see it.
 * Plain data: the main process rebuilds it from the proxy handle and the stores on every change.
 */
export type StartupProblemKind =
  | 'port_in_use'
  | 'port_blocked'
  | 'data_dir_in_use'
  | 'log_damaged'
  | 'log_unreadable'
  | 'keychain_unavailable'
  | 'keychain_locked'
  | 'unknown';

export interface StartupProblem {
  kind: StartupProblemKind;
  /** What happened, in one sentence, without keys or tokens. */
  detail: string;
}

export interface ProfileSummary {
  id: string;
  name: string;
}

export interface PausedClient {
  /** The client token's name. */
  name: string;
  /** Why the burst guard paused it, in words. */
  reason: string;
}

export interface BudgetAlert {
  scope: 'profile' | 'client';
  /** Profile id or client token name. */
  subject: string;
  period: 'daily' | 'monthly';
  percent: BudgetAlertPercent;
  spentCredits: number;
  capCredits: number;
}

export interface AppState {
  proxy:
    | { status: 'starting'; port: number }
    | { status: 'serving' | 'paused'; port: number; origin: string }
    | { status: 'failed'; port: number; problem: StartupProblem };
  profiles: readonly ProfileSummary[];
  activeProfileId: string | null;
  /** null while the log is not readable yet. */
  todaySpendCredits: number | null;
  /** Profiles whose key the gateway answered 401/403 to since the last change of key. */
  keyRejectedProfileIds: readonly string[];
  /** Profiles whose gateway account has no balance or quota left, until a request on it succeeds. */
  quotaExhaustedProfileIds: readonly string[];
  /** Profiles whose budget refused a request today (ids: the tray and notifications show their names). */
  budgetReachedProfileIds: readonly string[];
  /** Clients the burst guard paused: their requests are refused until resumed in the window. */
  pausedClients: readonly PausedClient[];
  hasClientToken: boolean;
  startAtLogin: boolean;
  notificationsEnabled: boolean;
  /** Caps whose spend passed an alert share (50, 80 or 100%) this period. */
  budgetAlerts: readonly BudgetAlert[];
  /** The tools Connect can set up, for the tray's Connect submenu. */
  connectTools: readonly ConnectToolSummary[];
}
