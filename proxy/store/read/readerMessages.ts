import type {
  FacetCounts,
  LogTotals,
  ModelStats,
  RequestCursor,
  RequestListFilter,
  RequestLogRow,
  RequestPage,
  SpendByDayQuery,
  SpendByDayRow,
  StoredRequest,
  TimeRange,
  TotalsQuery,
} from '../../contracts/log.ts';
import type { LocalBucket } from '../../core/localPeriods.ts';
import type { AgentSessionSummary } from '../../contracts/agentSessions.ts';
import type { SessionListQuery, SessionTurnsQuery } from './sessionQueries.ts';

/** Each read the reader thread answers: its arguments, and what it returns (as the main connection's query does). */
export interface ReaderReads {
  listRequests: (filter: RequestListFilter) => RequestPage;
  facets: (filter: RequestListFilter) => FacetCounts;
  getRequest: (id: string) => StoredRequest | null;
  replaysOf: (id: string) => string[];
  /**
   * With the local days or hours cut on the forwarding thread: it follows the OS's zone
   * (localZone.ts), and a worker thread keeps the zone it started in whatever TZ it is given.
   */
  spendByDay: (query: SpendByDayQuery, localBuckets: readonly LocalBucket[]) => SpendByDayRow[];
  totals: (query: TotalsQuery) => LogTotals;
  modelStats: (range: TimeRange) => ModelStats[];
  listSessions: (query: SessionListQuery) => { sessions: AgentSessionSummary[]; hasMore: boolean };
  session: (sessionId: string) => AgentSessionSummary | null;
  turns: (sessionId: string, query: SessionTurnsQuery) => { rows: RequestLogRow[]; turnsBefore: number; hasMore: boolean };
  turnsThrough: (sessionId: string, cursor: RequestCursor, limit: number) => RequestLogRow[];
}

export type ReadName = keyof ReaderReads;

export interface ReaderThreadData {
  databasePath: string;
  /**
   * Test hook, two Int32s: the thread counts each read in the second, then waits while the first is
   * 0, as a read held by a slow query would (Atomics.wait; set it to 1 and notify to let reads through).
   */
  holdSignal: SharedArrayBuffer | null;
}

/** A read, with the secrets known now: the thread masks its answer with them as the main connection's queries do. */
export interface ToReaderThread {
  id: number;
  read: ReadName;
  args: unknown[];
  secrets: string[];
}

/** The answer, or the error as plain fields (SQLite's errcode kept, so damage is still recognised). */
export type FromReaderThread =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; message: string; errcode: number | null; code: string | null };
