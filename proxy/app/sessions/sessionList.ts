import type { AgentSessionSummary } from '../../contracts/agentSessions.ts';
import type { RequestCursor } from '../../contracts/log.ts';
import type { SessionListQuery, SessionQueries } from '../../store/read/sessionQueries.ts';

/** A page as the log's session reads return it, now (the CLI's connection) or later (the reader thread). */
type SessionPage = ReturnType<SessionQueries['listSessions']>;

/** A page of sessions, newest activity first, and where the next page starts. */
export async function sessionPage(
  sessions: { listSessions(query: SessionListQuery): SessionPage | Promise<SessionPage> },
  query: SessionListQuery,
): Promise<{ items: AgentSessionSummary[]; nextCursor: RequestCursor | null }> {
  const page = await sessions.listSessions(query);
  const last = page.sessions.at(-1);
  return { items: page.sessions, nextCursor: page.hasMore && last ? { startedAtMs: last.lastStartedAtMs, id: last.id } : null };
}
