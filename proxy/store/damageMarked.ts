import type { IdempotencyStore } from '../contracts/idempotencyStore.ts';
import type { SessionQueries } from './read/sessionQueries.ts';

/** Runs a query on the log's main connection and marks the log damaged when SQLite says so (SqliteRequestLog.read). */
type DamageMarking = <T>(query: () => T) => T;

/** What the agent-session screens read: the session list and one session's turns. */
export type SessionReads = Pick<SessionQueries, 'listSessions' | 'session' | 'turns' | 'turnsThrough'>;

/**
 * The session screens read the same file as the window's lists: a damaged page they meet must be
 * marked as theirs is, or the run records a clean close and the next start keeps the damaged log.
 */
export function damageMarkedSessions(sessions: SessionQueries, marking: DamageMarking): SessionReads {
  return {
    listSessions: (query) => marking(() => sessions.listSessions(query)),
    session: (sessionId) => marking(() => sessions.session(sessionId)),
    turns: (sessionId, query) => marking(() => sessions.turns(sessionId, query)),
    turnsThrough: (sessionId, cursor, limit) => marking(() => sessions.turnsThrough(sessionId, cursor, limit)),
  };
}

/**
 * Keyed creations look their key up (and keep their answer) in the log: a damaged page there refuses
 * the key until a restart sets the log aside, which only a marked log gets.
 */
export function damageMarkedIdempotencyStore(store: IdempotencyStore, marking: DamageMarking): IdempotencyStore {
  return {
    find: (profileId, idempotencyKey, sinceMs) => marking(() => store.find(profileId, idempotencyKey, sinceMs)),
    begin: (profileId, idempotencyKey, first) => marking(() => store.begin(profileId, idempotencyKey, first)),
    settle: (profileId, idempotencyKey, response) => marking(() => store.settle(profileId, idempotencyKey, response)),
    forget: (profileId, idempotencyKey) => marking(() => store.forget(profileId, idempotencyKey)),
    prune: (beforeMs, maxBodyBytes) => marking(() => store.prune(beforeMs, maxBodyBytes)),
  };
}
