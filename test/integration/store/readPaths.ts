import type { RequestLog } from '../../../proxy/store/requestLog.ts';
import type { WindowReads } from '../../../proxy/store/read/windowReads.ts';

/**
 * The log's reads both ways: on the main connection (the CLI's and the caps' way) and on the reader
 * thread (the window's way, `log.reads`). A query test run over both proves the two give the same.
 */
export const READ_PATHS: [string, (log: RequestLog) => WindowReads][] = [
  [
    'read on the main connection',
    (log) => ({
      listRequests: async (filter) => log.listRequests(filter),
      facets: async (filter) => log.facets(filter),
      getRequest: async (id) => log.getRequest(id),
      replaysOf: async (id) => log.replaysOf(id),
      spendByDay: async (query) => log.spendByDay(query),
      totals: async (query) => log.totals(query),
      modelStats: async (range) => log.modelStats(range),
      sessions: {
        listSessions: async (query) => log.sessions.listSessions(query),
        session: async (sessionId) => log.sessions.session(sessionId),
        turns: async (sessionId, query) => log.sessions.turns(sessionId, query),
        turnsThrough: async (sessionId, cursor, limit) => log.sessions.turnsThrough(sessionId, cursor, limit),
      },
    }),
  ],
  ['read on the reader thread', (log) => log.reads],
];
