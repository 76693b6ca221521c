import type { AgentSessionSummary } from '../../contracts/agentSessions.ts';
import type { RequestCursor } from '../../contracts/log.ts';
import type { SessionListQuery, SessionQueries } from '../../store/read/sessionQueries.ts';

/** A page of sessions, newest activity first, and where the next page starts. */
export function sessionPage(
  sessions: Pick<SessionQueries, 'listSessions'>,
  query: SessionListQuery,
): { items: AgentSessionSummary[]; nextCursor: RequestCursor | null } {
  const page = sessions.listSessions(query);
  const last = page.sessions.at(-1);
  return { items: page.sessions, nextCursor: page.hasMore && last ? { startedAtMs: last.lastStartedAtMs, id: last.id } : null };
}
