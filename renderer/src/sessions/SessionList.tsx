import type { AgentSessionPage, AgentSessionSummary } from '../../../proxy/contracts/agentSessions.ts';
import { useApi } from '../api/ApiContext.tsx';
import { formatDuration, formatTimestamp } from '../common/format.ts';
import { Empty, ErrorState, Loading } from '../common/StateViews.tsx';
import { sessionHash } from '../common/useHashRoute.ts';
import { shortSessionId } from '../live/RequestRow.tsx';
import { sessionCost, sessionSource } from './sessionFormat.ts';
import { usePages } from './usePages.ts';
import { BusyButton } from '../common/BusyButton.tsx';

const sessionsOf = (page: AgentSessionPage): AgentSessionSummary[] => page.items;

/** Agents' sessions, newest activity first, a page at a time. */
export function SessionList() {
  const api = useApi();
  // Turns, credits and errors are summed from the log: read again when the window gets Airlock back.
  const pages = usePages((cursor) => api.agentSessions(cursor), sessionsOf, 'sessions', { readAgainWhenBack: true });
  if (pages.first === null) {
    if (pages.error) return <ErrorState error={pages.error} onRetry={pages.reload} />;
    return <Loading what="sessions" />;
  }
  return (
    <div className="screen session-list">
      <header className="screen-header">
        <h2>Sessions</h2>
        <button type="button" onClick={pages.reload}>
          Refresh
        </button>
      </header>
      {pages.items.length === 0 ? (
        <Empty title="No agent sessions yet">
          <p className="muted">
            Claude Code and Codex name their sessions; other tools' requests join one when they continue the same conversation.
          </p>
        </Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">First prompt</th>
              <th scope="col">Client</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
              <th scope="col">Turns</th>
              <th scope="col">Credits</th>
              <th scope="col">Errors</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((session) => (
              <tr key={session.id} data-session-id={session.id}>
                <th scope="row" className="session-prompt">
                  <a href={sessionHash(session.id)}>{session.firstPrompt ?? '(no prompt text)'}</a>{' '}
                  <span className="muted" title={`${session.id}: ${sessionSource(session)}`}>
                    {shortSessionId(session.id)}
                  </span>
                </th>
                <td>{session.clientName ?? '—'}</td>
                <td>{formatTimestamp(session.startedAtMs)}</td>
                <td>{formatDuration(session.durationMs)}</td>
                <td>{session.turns}</td>
                <td>{sessionCost(session)}</td>
                <td className={session.errors > 0 ? 'bad-text' : undefined}>{session.errors}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages.hasMore && (
        <BusyButton busy={pages.loading} onPress={pages.loadMore}>
          {pages.loading ? 'Loading…' : 'Show older sessions'}
        </BusyButton>
      )}
      {pages.error && <ErrorState error={pages.error} onRetry={pages.loadMore} />}
    </div>
  );
}
