// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Notice } from '../../../proxy/contracts/notices.ts';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import { StatusBar } from '../../../renderer/src/status/StatusBar.tsx';
import { decideNoticeNotifications } from '../../../electron/logic/noticeNotifications.ts';

afterEach(cleanup);

const notice: Notice = {
  id: 'n1',
  kind: 'capabilities_not_saved',
  atMs: Date.UTC(2026, 10, 27, 14, 5),
  cause: 'could not keep capability results in /data/capabilities.json (ENOSPC)',
  fix: 'Free space on the disk that holds the data directory.',
};

function statusWith(notices: Notice[]): StatusResponse {
  return {
    proxyUrl: 'http://127.0.0.1:8642',
    paused: false,
    inFlight: 0,
    activeProfile: null,
    todaySpend: { credits: 0, cny: 0, usdApprox: 0 },
    alarms: [],
    notices,
    firstRun: { hasProfile: true, hasKey: true, hasClientToken: true },
  };
}

describe('the status bar', () => {
  it("shows Airlock's notices where alarms show, with their cause and fix, and dismisses one", () => {
    const onDismissNotice = vi.fn();
    render(
      <StatusBar
        connected
        status={statusWith([notice])}
        onTogglePause={vi.fn()}
        onResumeClient={vi.fn()}
        onDismissNotice={onDismissNotice}
      />,
    );
    const alarms = screen.getByRole('alert', { name: 'Alarms' });
    expect(alarms.textContent).toContain(notice.cause);
    expect(alarms.textContent).toContain(notice.fix);
    fireEvent.click(within(alarms).getByRole('button', { name: 'Dismiss' }));
    expect(onDismissNotice).toHaveBeenCalledWith('n1');
  });

  it('writes out an invisible or bidi character in a cause or an alarm, as the OS notification does', () => {
    // A model or file name chosen by a client: an override would turn the window's own words around it backwards.
    const reversed = { ...notice, cause: 'could not keep capability results for model gpt\u202E4o (ENOSPC)' };
    const status = { ...statusWith([reversed]), alarms: [{ kind: 'log_degraded' as const, message: 'request log: model a\u200Bb' }] };
    render(<StatusBar connected status={status} onTogglePause={vi.fn()} onResumeClient={vi.fn()} onDismissNotice={vi.fn()} />);
    const alarms = screen.getByRole('alert', { name: 'Alarms' });
    expect(alarms.textContent).toContain('gpt⟨U+202E⟩4o');
    expect(alarms.textContent).toContain('a⟨U+200B⟩b');
    expect(alarms.textContent).not.toMatch(/[\u202E\u200B]/);
    const [notification] = decideNoticeNotifications(new Set(), [reversed], {
      windowShown: false,
      notificationsEnabled: true,
    }).notifications;
    expect(notification?.body).toContain('gpt⟨U+202E⟩4o');
  });

  it('shows no alarm area when there is neither an alarm nor a notice', () => {
    render(<StatusBar connected status={statusWith([])} onTogglePause={vi.fn()} onResumeClient={vi.fn()} onDismissNotice={vi.fn()} />);
    expect(screen.queryByRole('alert', { name: 'Alarms' })).toBeNull();
  });
});
