import { describe, expect, it } from 'vitest';
import type { AppState } from '../../../electron/logic/appState.ts';
import { decideNotifications } from '../../../electron/logic/notifications.ts';
import { appState } from './appStateFixture.ts';

const failed = {
  status: 'failed' as const,
  port: 8642,
  problem: { kind: 'keychain_locked' as const, detail: 'the OS keychain is locked' },
};

describe('decideNotifications', () => {
  it.each<[string, Partial<AppState>, string[]]>([
    ['nothing wrong', {}, []],
    ['budget cap reached', { budgetReachedProfileIds: ['main'] }, ['Budget reached']],
    ['key rejected', { keyRejectedProfileIds: ['main'] }, ['Gateway key rejected']],
    ['proxy unable to start', { proxy: failed }, ['Airlock could not start']],
    ['gateway account out of balance', { quotaExhaustedProfileIds: ['main'] }, ['Gateway account out of balance']],
    ['client paused by the burst guard', { pausedClients: [{ name: 'aider', reason: '40 requests in 10 s' }] }, ['Client paused']],
    [
      'two alarms at once',
      { keyRejectedProfileIds: ['main'], budgetReachedProfileIds: ['main'] },
      ['Gateway key rejected', 'Budget reached'],
    ],
  ])('%s -> %j', (_name, overrides, titles) => {
    expect(decideNotifications(new Set(), appState(overrides)).notices.map((notice) => notice.title)).toEqual(titles);
  });

  it('names the profile whose account is empty and says requests fail until it is topped up', () => {
    const [notice] = decideNotifications(new Set(), appState({ quotaExhaustedProfileIds: ['backup'] })).notices;
    expect(notice?.body).toBe(
      'The gateway account of profile "Backup" has no balance or quota left: every request on it fails until you top it up in the gateway console.',
    );
  });

  it('says which client the burst guard paused, why, and where to resume it', () => {
    const [notice] = decideNotifications(
      new Set(),
      appState({ pausedClients: [{ name: 'aider', reason: '40 requests in 10 s' }] }),
    ).notices;
    expect(notice?.body).toBe('Client aider is refused: 40 requests in 10 s. Resume it in Airlock once you have checked it.');
  });

  it('names the profile whose key was rejected', () => {
    const [notice] = decideNotifications(new Set(), appState({ keyRejectedProfileIds: ['backup'] })).notices;
    expect(notice?.body).toContain('"Backup"');
  });

  it('does not repeat an alarm that is still active, and repeats it after it cleared', () => {
    const reached = appState({ budgetReachedProfileIds: ['main'] });
    const first = decideNotifications(new Set(), reached);
    const again = decideNotifications(first.activeAlarmKeys, reached);
    expect(again.notices).toEqual([]);
    const cleared = decideNotifications(again.activeAlarmKeys, appState());
    expect(cleared.activeAlarmKeys.size).toBe(0);
    expect(decideNotifications(cleared.activeAlarmKeys, reached).notices).toHaveLength(1);
  });

  it('notifies only the new alarm when a second one appears', () => {
    const first = decideNotifications(new Set(), appState({ budgetReachedProfileIds: ['main'] }));
    const next = decideNotifications(first.activeAlarmKeys, appState({ budgetReachedProfileIds: ['main', 'backup'] }));
    expect(next.notices.map((notice) => notice.alarmKey)).toEqual(['budget:backup']);
  });

  it('shows nothing when the setting is off, and does not replay old alarms when it is turned on', () => {
    const off = decideNotifications(new Set(), appState({ notificationsEnabled: false, keyRejectedProfileIds: ['main'] }));
    expect(off.notices).toEqual([]);
    expect(decideNotifications(off.activeAlarmKeys, appState({ keyRejectedProfileIds: ['main'] })).notices).toEqual([]);
  });
});

describe('budget share notifications', () => {
  const share = (percent: 50 | 80 | 100, spentCredits: number) => ({
    scope: 'profile' as const,
    subject: 'main',
    period: 'daily' as const,
    percent,
    spentCredits,
    capCredits: 10,
  });

  it.each<[number, 50 | 80 | 100, string, string]>([
    [5, 50, 'Budget 50% used', 'Profile "Main gateway": 5 of 10 credits today.'],
    [8.25, 80, 'Budget 80% used', 'Profile "Main gateway": 8.25 of 10 credits today.'],
    [
      10,
      100,
      'Budget used up',
      'Profile "Main gateway": 10 of 10 credits today. Its requests are refused until the cap resets or you raise it.',
    ],
  ])('%d of 10 credits -> %s', (spent, percent, title, body) => {
    expect(decideNotifications(new Set(), appState({ budgetAlerts: [share(percent, spent)] })).notices).toEqual([
      { alarmKey: `budget-share:profile:main:daily:${percent}`, title, body },
    ]);
  });

  it('notifies once per share: again when 80% follows 50%, not while spend grows within a share', () => {
    const atHalf = decideNotifications(new Set(), appState({ budgetAlerts: [share(50, 5)] }));
    expect(decideNotifications(atHalf.activeAlarmKeys, appState({ budgetAlerts: [share(50, 6)] })).notices).toEqual([]);
    const atEighty = decideNotifications(atHalf.activeAlarmKeys, appState({ budgetAlerts: [share(80, 8)] }));
    expect(atEighty.notices.map((notice) => notice.title)).toEqual(['Budget 80% used']);
  });
});
