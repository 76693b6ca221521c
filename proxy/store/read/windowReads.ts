import type { SpendByDayQuery, SpendByDayRow, TotalsQuery } from '../../contracts/log.ts';
import { localBuckets } from '../../core/localPeriods.ts';
import { spendByDayWith, totalsWith, type SpendEntry } from '../write/unwrittenSpend.ts';
import type { AsyncReads } from './logReader.ts';

/** The agent-session screens' reads, answered later (SessionReads, off the forwarding thread). */
export type AsyncSessionReads = Pick<AsyncReads, 'listSessions' | 'session' | 'turns' | 'turnsThrough'>;

/**
 * The window's reads of the log, answered by the reader thread (logReader.ts): the same figures as
 * the main connection's queries, without holding up forwarding while SQLite works.
 */
export interface WindowReads extends Pick<AsyncReads, 'listRequests' | 'facets' | 'getRequest' | 'replaysOf' | 'totals' | 'modelStats'> {
  spendByDay(query: SpendByDayQuery): Promise<SpendByDayRow[]>;
  readonly sessions: AsyncSessionReads;
}

/** Reports an error that says the file is damaged (SqliteRequestLog.read), then fails the read with it. */
type DamageMarkingAsync = <T>(read: () => Promise<T>) => Promise<T>;

/**
 * The thread's answers with what only this thread knows merged in, as the synchronous queries
 * merge it: the spend the database could not take or has not received yet (`unwrittenEntries`),
 * read as the answer arrives. Rows the log thread writes after the reader's snapshot and reports
 * before the answer count in neither until the next read (rows written before it and not yet
 * reported count twice for a moment, as on the main connection): a moment's error in the window's
 * figures while the log is behind or the disk full; spend caps check the ledger, not these reads.
 */
export function windowReadsOf(reads: AsyncReads, unwrittenEntries: () => SpendEntry[], marking: DamageMarkingAsync): WindowReads {
  return {
    listRequests: (filter) => marking(() => reads.listRequests(filter)),
    facets: (filter) => marking(() => reads.facets(filter)),
    getRequest: (id) => marking(() => reads.getRequest(id)),
    replaysOf: (id) => marking(() => reads.replaysOf(id)),
    spendByDay: (query: SpendByDayQuery) =>
      marking(async () => {
        const rows = await reads.spendByDay(query, localBuckets(query.fromMs, query.toMs, query.bucket ?? 'day'));
        return query.bucket === 'hour' ? rows : spendByDayWith(rows, unwrittenEntries(), query);
      }),
    totals: (query: TotalsQuery) => marking(async () => totalsWith(await reads.totals(query), unwrittenEntries(), query)),
    modelStats: (range) => marking(() => reads.modelStats(range)),
    sessions: {
      listSessions: (query) => marking(() => reads.listSessions(query)),
      session: (sessionId) => marking(() => reads.session(sessionId)),
      turns: (sessionId, query) => marking(() => reads.turns(sessionId, query)),
      turnsThrough: (sessionId, cursor, limit) => marking(() => reads.turnsThrough(sessionId, cursor, limit)),
    },
  };
}
