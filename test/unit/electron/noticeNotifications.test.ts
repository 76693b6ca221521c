import { describe, expect, it } from 'vitest';
import { decideNoticeNotifications } from '../../../electron/logic/noticeNotifications.ts';
import type { Notice } from '../../../proxy/contracts/notices.ts';

const saveFailure: Notice = {
  id: 'capabilities_not_saved-1',
  kind: 'capabilities_not_saved',
  atMs: 1_000,
  cause: 'could not keep capability results in /data/capabilities.json (ENOSPC)',
  fix: 'Free space on the disk that holds the data directory.',
};
const envKey: Notice = { ...saveFailure, id: 'environment_key-2', kind: 'environment_key', cause: 'Using the key from AIRLOCK_API_KEY.' };
const closed = { windowShown: false, notificationsEnabled: true };

describe('decideNoticeNotifications', () => {
  it('notifies a new notice while the window is closed, with its cause and fix', () => {
    const decision = decideNoticeNotifications(new Set(), [saveFailure], closed);
    expect(decision.notifications).toEqual([
      { title: 'Airlock could not save capability results', body: `${saveFailure.cause} ${saveFailure.fix}` },
    ]);
  });

  it('does not notify what the open window shows, nor notify it later once the window is closed', () => {
    const seen = decideNoticeNotifications(new Set(), [saveFailure], { windowShown: true, notificationsEnabled: true });
    expect(seen.notifications).toEqual([]);
    expect(decideNoticeNotifications(seen.seenIds, [saveFailure], closed).notifications).toEqual([]);
  });

  it('notifies only the new one of several, and again when a dismissed one happens again (a new id)', () => {
    const first = decideNoticeNotifications(new Set(), [saveFailure], closed);
    const second = decideNoticeNotifications(first.seenIds, [envKey, saveFailure], closed);
    expect(second.notifications.map((notification) => notification.title)).toEqual(['Airlock runs on the key from AIRLOCK_API_KEY']);
    const dismissed = decideNoticeNotifications(second.seenIds, [envKey], closed);
    const again = decideNoticeNotifications(dismissed.seenIds, [{ ...saveFailure, id: 'capabilities_not_saved-3' }, envKey], closed);
    expect(again.notifications).toHaveLength(1);
  });

  it('with notifications off shows none, and turning them on does not replay those seen', () => {
    const off = decideNoticeNotifications(new Set(), [saveFailure], { windowShown: false, notificationsEnabled: false });
    expect(off.notifications).toEqual([]);
    expect(decideNoticeNotifications(off.seenIds, [saveFailure], closed).notifications).toEqual([]);
  });

  it('writes out invisible characters in a cause (a file or model name a client chose)', () => {
    const [notification] = decideNoticeNotifications(
      new Set(),
      [{ ...saveFailure, cause: 'in /data/\u202Eevil.json' }],
      closed,
    ).notifications;
    expect(notification?.body).not.toContain('\u202E');
  });
});
