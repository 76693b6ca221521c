import { formatCredits } from '../../proxy/contracts/amounts.ts';
import { showInvisible } from '../../proxy/contracts/displayText.ts';
import type { AppState } from './appState.ts';
import { profileName } from './profileNames.ts';

/**
 * Which state changes deserve an OS notification: a budget cap at 50, 80 or 100% or reached, the key rejected by the
 * gateway, its account out of balance, a client paused by the burst guard, the proxy unable to start. Each alarm notifies once when it appears; it notifies again
 * only after it has cleared and come back. With notifications off nothing is shown, but alarms
 * are still tracked so turning them on does not replay old ones.
 */
export interface Notice {
  alarmKey: string;
  title: string;
  body: string;
}

export function activeAlarms(state: AppState): Notice[] {
  const alarms: Notice[] = [];
  if (state.proxy.status === 'failed') {
    alarms.push({
      alarmKey: `start:${state.proxy.problem.kind}`,
      title: 'Airlock could not start',
      body: `${state.proxy.problem.detail}. Open Airlock for the fix.`,
    });
  }
  for (const profileId of state.keyRejectedProfileIds) {
    const name = profileName(state.profiles, profileId);
    alarms.push({
      alarmKey: `key:${profileId}`,
      title: 'Gateway key rejected',
      body: `The gateway rejected the key of profile "${name}". Set a new key in Airlock.`,
    });
  }
  for (const profileId of state.quotaExhaustedProfileIds) {
    const name = profileName(state.profiles, profileId);
    alarms.push({
      alarmKey: `quota:${profileId}`,
      title: 'Gateway account out of balance',
      body: `The gateway account of profile "${name}" has no balance or quota left: every request on it fails until you top it up in the gateway console.`,
    });
  }
  for (const client of state.pausedClients) {
    alarms.push({
      alarmKey: `client-paused:${client.name}`,
      title: 'Client paused',
      body: `Client ${client.name} is refused: ${client.reason}. Resume it in Airlock once you have checked it.`,
    });
  }
  for (const alert of state.budgetAlerts) {
    const who = alert.scope === 'profile' ? `Profile "${profileName(state.profiles, alert.subject)}"` : `Client ${alert.subject}`;
    alarms.push({
      // One per share and period: passing 80% after 50% notifies again; a new period clears both.
      alarmKey: `budget-share:${alert.scope}:${alert.subject}:${alert.period}:${alert.percent}`,
      title: alert.percent === 100 ? 'Budget used up' : `Budget ${alert.percent}% used`,
      body: `${who}: ${formatCredits(alert.spentCredits)} of ${formatCredits(alert.capCredits)} credits ${alert.period === 'daily' ? 'today' : 'this month'}.${alert.percent === 100 ? ' Its requests are refused until the cap resets or you raise it.' : ''}`,
    });
  }
  for (const profileId of state.budgetReachedProfileIds) {
    alarms.push({
      alarmKey: `budget:${profileId}`,
      title: 'Budget reached',
      body: `Profile "${profileName(state.profiles, profileId)}": requests are refused until the cap resets or you raise it.`,
    });
  }
  // Profile names are the user's: an override in one (U+202E) is written out, as in the tray and the window.
  return alarms.map((alarm) => ({ ...alarm, body: showInvisible(alarm.body) }));
}

export interface NotificationDecision {
  notices: Notice[];
  /** Pass back in on the next state change. */
  activeAlarmKeys: ReadonlySet<string>;
}

export function decideNotifications(previousAlarmKeys: ReadonlySet<string>, state: AppState): NotificationDecision {
  const alarms = activeAlarms(state);
  const fresh = alarms.filter((alarm) => !previousAlarmKeys.has(alarm.alarmKey));
  return {
    notices: state.notificationsEnabled ? fresh : [],
    activeAlarmKeys: new Set(alarms.map((alarm) => alarm.alarmKey)),
  };
}
