import { useEffect, useState } from 'react';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import { formatCredits, formatMoney, formatTimestamp, showInvisible } from '../common/format.ts';

interface StatusBarProps {
  status: StatusResponse | null;
  connected: boolean;
  onTogglePause: () => void;
  /** Lifts a burst-guard pause of one client (its alarm's Resume button). */
  onResumeClient: (clientName: string) => void;
  /** Hides a notice until it happens again. */
  onDismissNotice: (noticeId: string) => void;
}

/** When the window last lost Airlock (epoch ms), null while connected: the figures shown are as of then. */
function useLostAtMs(connected: boolean): number | null {
  const [lostAtMs, setLostAtMs] = useState<number | null>(null);
  // Set in render, not in an effect: the first render without the proxy already says since when.
  if (!connected && lostAtMs === null) setLostAtMs(Date.now());
  if (connected && lostAtMs !== null) setLostAtMs(null);
  return connected ? null : (lostAtMs ?? Date.now());
}

const CLOCK = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;

/** How often a window without Airlock looks whether the local day turned (a timer to midnight runs late after a laptop's sleep). */
const DAY_CHECK_MS = 60_000;

/** The local day now, kept current while `watching`: the render after midnight says the figures are the day before's. */
function useLocalDay(watching: boolean): string {
  const [day, setDay] = useState(() => new Date().toDateString());
  useEffect(() => {
    if (!watching) return undefined;
    const check = () => setDay(new Date().toDateString());
    check();
    const timer = setInterval(check, DAY_CHECK_MS);
    // A window brought back after a night in the tray is looked at before its next tick.
    document.addEventListener('visibilitychange', check);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', check);
    };
  }, [watching]);
  return day;
}

/**
 * What today's spend is labelled while Airlock is unreachable: "Today (as of 14:05)", and once the
 * local day turned, the day it was as of, in the locale's words ("Sat, 28 Nov (as of 23:10)"): it
 * is that day's spend, not today's.
 */
function spendLabelAsOf(lostAtMs: number, today: string): string {
  const lostAt = new Date(lostAtMs);
  const time = lostAt.toLocaleTimeString(undefined, CLOCK);
  if (lostAt.toDateString() === today) return `Today (as of ${time})`;
  const sameYear = lostAt.getFullYear() === new Date(today).getFullYear();
  const day = lostAt.toLocaleDateString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(sameYear ? {} : { year: 'numeric' }),
  });
  return `${day} (as of ${time})`;
}

export function StatusBar({ status, connected, onTogglePause, onResumeClient, onDismissNotice }: StatusBarProps) {
  const lostAtMs = useLostAtMs(connected);
  const today = useLocalDay(lostAtMs !== null);
  if (!status) {
    return (
      <footer className="status-bar" role="status">
        Connecting to Airlock…
      </footer>
    );
  }
  return (
    <footer className="status-bar">
      <span className="status-item">
        {/* Unreachable wins over paused: a pause the proxy had may not have survived its restart. */}
        <span className={`dot ${connected ? (status.paused ? 'paused' : 'running') : 'offline'}`} aria-hidden="true" />
        <code>{status.proxyUrl}</code>{' '}
        {connected ? (status.paused ? 'paused' : 'running') : 'not reachable: reconnecting by itself, nothing to do here'}
      </span>
      {/* Pausing is asked of the proxy: without it, a click did nothing and said nothing. */}
      <button type="button" onClick={onTogglePause} aria-pressed={status.paused} disabled={!connected}>
        {status.paused ? 'Resume proxy' : 'Pause proxy'}
      </button>
      <span className="status-item">
        Profile: <strong>{status.activeProfile ? status.activeProfile.name : 'none'}</strong>
        {status.activeProfile && !status.activeProfile.key.set
          ? status.activeProfile.key.unread
            ? ' (key not read yet)'
            : ' (no key set)'
          : null}
        {status.activeProfile?.key.fromEnvironment ? ' (key from AIRLOCK_API_KEY)' : null}
      </span>
      <span className="status-item">
        {/* Without the proxy, today's spend is what it was when the window lost it, and said so: requests
            may run on (the proxy restarted) or the stop ended those in flight. */}
        {lostAtMs === null ? 'Today' : spendLabelAsOf(lostAtMs, today)}: <strong>{formatCredits(status.todaySpend.credits)} credits</strong>{' '}
        ({formatMoney(status.todaySpend.cny, 'CNY')}, ≈{formatMoney(status.todaySpend.usdApprox, 'USD')})
      </span>
      <span className="status-item">
        {lostAtMs === null ? `${status.inFlight} in flight` : 'in flight: not known while Airlock is unreachable'}
      </span>
      {(status.alarms.length > 0 || status.notices.length > 0) && (
        <div role="alert" aria-label="Alarms">
          <ul className="alarms">
            {status.alarms.map((alarm) => (
              <li key={`${alarm.kind}:${alarm.profileId ?? ''}:${alarm.clientName ?? ''}`} className={`alarm alarm-${alarm.kind}`}>
                {/* Messages and causes name models, files and errors others chose: an override (U+202E) is written out, as in the OS notification. */}
                {showInvisible(alarm.message)}
                {alarm.kind === 'client_paused' && alarm.clientName && (
                  <button type="button" onClick={() => onResumeClient(alarm.clientName as string)}>
                    Resume {alarm.clientName}
                  </button>
                )}
              </li>
            ))}
            {status.notices.map((notice) => (
              <li key={notice.id} className={`alarm notice notice-${notice.kind}`}>
                <time dateTime={new Date(notice.atMs).toISOString()}>{formatTimestamp(notice.atMs)}</time> {showInvisible(notice.cause)}{' '}
                <span className="notice-fix">{notice.fix}</span>
                <button type="button" onClick={() => onDismissNotice(notice.id)}>
                  Dismiss
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </footer>
  );
}
