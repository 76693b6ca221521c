// @vitest-environment happy-dom
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StatusBar } from '../../../renderer/src/status/StatusBar.tsx';

afterEach(cleanup);

describe('StatusBar without Airlock', () => {
  it('dates the figures it lost Airlock with once that day is over, in the locale’s words', () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    try {
      const lostAt = new Date(2026, 10, 28, 23, 10);
      vi.setSystemTime(lostAt);
      const status = {
        proxyUrl: 'http://127.0.0.1:8642',
        paused: false,
        inFlight: 0,
        activeProfile: null,
        todaySpend: { credits: 12.5, cny: 9.38, usdApprox: 1.38 },
        alarms: [],
        notices: [],
        firstRun: { hasProfile: true, hasKey: true, hasClientToken: true },
      };
      const bar = (connected: boolean) => (
        <StatusBar connected={connected} onTogglePause={vi.fn()} onResumeClient={vi.fn()} onDismissNotice={vi.fn()} status={status} />
      );
      const text = () => document.querySelector('.status-bar')?.textContent ?? '';
      const { rerender } = render(bar(true));
      rerender(bar(false));
      expect(text()).toContain('Today (as of 23:10): 12.5 credits');
      const day = lostAt.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
      // The window stays open past midnight: the figure is the 28th's, and says so.
      act(() => vi.advanceTimersByTime(60 * 60_000));
      expect(text()).not.toContain('Today');
      expect(text()).toContain(`${day} (as of 23:10): 12.5 credits`);
      // Back to today, then a night asleep: no timer ran, and the window is looked at again in the morning.
      rerender(bar(true));
      vi.setSystemTime(new Date(2026, 10, 29, 23, 50));
      rerender(bar(false));
      expect(text()).toContain('Today (as of 23:50)');
      vi.setSystemTime(new Date(2026, 10, 30, 8, 0));
      act(() => {
        document.dispatchEvent(new Event('visibilitychange'));
      });
      const nextDay = new Date(2026, 10, 29).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
      expect(text()).toContain(`${nextDay} (as of 23:50)`);
      // Lost in an earlier year: the year is said too.
      rerender(bar(true));
      vi.setSystemTime(new Date(2026, 11, 31, 22, 0));
      rerender(bar(false));
      vi.setSystemTime(new Date(2027, 0, 1, 9, 0));
      act(() => {
        document.dispatchEvent(new Event('visibilitychange'));
      });
      expect(text()).toContain(
        new Date(2026, 11, 31).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }),
      );
    } finally {
      vi.useRealTimers();
    }
  });
});
