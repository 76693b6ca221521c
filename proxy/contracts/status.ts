import type { Notice } from './notices.ts';
import type { KeyStatus } from './profileViews.ts';

/** The control API's status (GET /status, pause and resume): what the status bar and the tray show. */

export interface MoneyAmount {
  credits: number;
  cny: number;
  /** Card reference rate only; checkout amounts differ. */
  usdApprox: number;
}

export type AlarmKind =
  | 'budget_reached'
  | 'budget_warning'
  | 'key_rejected'
  | 'quota_exhausted'
  | 'log_degraded'
  | 'log_recovered'
  | 'ledger_incomplete'
  | 'client_paused'
  | 'auth_disabled'
  | 'keychain_unavailable'
  | 'config_invalid';

export interface Alarm {
  kind: AlarmKind;
  /** What happened and what to do, for people. */
  message: string;
  profileId?: string;
  clientName?: string;
}

export interface FirstRunSteps {
  hasProfile: boolean;
  hasKey: boolean;
  hasClientToken: boolean;
}

/** GET /status */
export interface StatusResponse {
  /** e.g. http://127.0.0.1:8642 */
  proxyUrl: string;
  paused: boolean;
  inFlight: number;
  activeProfile: { id: string; name: string; key: KeyStatus } | null;
  todaySpend: MoneyAmount;
  alarms: Alarm[];
  /** What this run found at start or while running (newest first), until dismissed; none an alarm already shows. */
  notices: Notice[];
  firstRun: FirstRunSteps;
}

/** POST /pause, POST /resume */
export interface PauseResponse {
  paused: boolean;
}
