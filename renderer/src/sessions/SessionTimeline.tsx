import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { AgentSessionTimeline, SessionTurn } from '../../../proxy/contracts/agentSessions.ts';
import { useApi } from '../api/ApiContext.tsx';
import { formatDuration, formatTimestamp } from '../common/format.ts';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { sessionHash } from '../common/useHashRoute.ts';
import { sessionCost, sessionSource } from './sessionFormat.ts';
import { TurnView } from './TurnView.tsx';
import { usePages } from './usePages.ts';

/** A turn's height before it is measured; turns differ a lot, the virtualiser measures each once shown. */
const ESTIMATED_TURN_PX = 260;
/** The next page loads when the view comes this many turns from the end of those loaded. */
const LOAD_AHEAD_TURNS = 5;

const turnsOf = (page: AgentSessionTimeline): SessionTurn[] => page.turns;

/**
 * A session's turns, oldest first. Only the turns in view are in the DOM (a session may have
 * hundreds, each with its bodies' items), and later pages load as the view nears the end.
 */
export function SessionTimeline({ sessionId }: { sessionId: string }) {
  const api = useApi();
  // Turns that ended while the window was away, and the heading's sums, come with a read from the first page.
  const pages = usePages((cursor) => api.agentSession(sessionId, cursor), turnsOf, sessionId, { readAgainWhenBack: true });
  const scrollRef = useRef<HTMLElement>(null);
  const turns = pages.items;
  const virtualizer = useVirtualizer({
    count: turns.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_TURN_PX,
    overscan: 3,
    getItemKey: (index) => turns[index]?.request.id ?? index,
  });
  const items = virtualizer.getVirtualItems();
  const lastShown = items.at(-1)?.index ?? 0;
  const { hasMore, loadMore } = pages;
  useEffect(() => {
    if (hasMore && turns.length > 0 && lastShown >= turns.length - LOAD_AHEAD_TURNS) loadMore();
  }, [hasMore, lastShown, turns.length, loadMore]);

  if (pages.first === null) {
    if (pages.error) return <ErrorState error={pages.error} onRetry={pages.reload} />;
    return <Loading what="the session" />;
  }
  const session = pages.first.session;
  return (
    <div className="session-timeline">
      <header className="screen-header session-heading">
        <p className="back-link">
          <a href={sessionHash(null)}>← All sessions</a>{' '}
          <button type="button" onClick={pages.reload}>
            Refresh
          </button>
        </p>
        <h2>{session.firstPrompt ?? 'Session without prompt text'}</h2>
        <dl className="session-figures">
          <dt>Client</dt>
          <dd>{session.clientName ?? '—'}</dd>
          <dt>Started</dt>
          <dd>{formatTimestamp(session.startedAtMs)}</dd>
          <dt>Duration</dt>
          <dd>{formatDuration(session.durationMs)}</dd>
          <dt>Turns</dt>
          <dd>{session.turns}</dd>
          <dt>Cost</dt>
          <dd>{sessionCost(session)} credits</dd>
          <dt>Errors</dt>
          <dd className={session.errors > 0 ? 'bad-text' : undefined}>{session.errors}</dd>
          <dt>Session</dt>
          <dd>
            <code>{session.id}</code> <span className="muted">({sessionSource(session)})</span>
          </dd>
        </dl>
      </header>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the turns scroll; keyboard users must be able to focus the list to scroll it */}
      <section ref={scrollRef} className="turn-scroll" aria-label="Turns, oldest first" tabIndex={0}>
        <div className="turn-canvas" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {items.map((item) => {
            const turn = turns[item.index];
            return turn ? (
              <div
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                className="turn-slot"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <TurnView turn={turn} />
              </div>
            ) : null;
          })}
        </div>
      </section>
      <p className="list-count muted" aria-live="polite">
        {turns.length} of {session.turns} turns loaded
        {pages.loading ? '; loading more…' : hasMore ? '; scroll down for later ones' : ''}
      </p>
      {pages.error && <ErrorState error={pages.error} onRetry={loadMore} />}
    </div>
  );
}
