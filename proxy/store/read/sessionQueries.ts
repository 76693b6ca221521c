import type { DatabaseSync } from 'node:sqlite';
import type { AgentSessionSummary } from '../../contracts/agentSessions.ts';
import type { RequestCursor, RequestLogRow } from '../../contracts/log.ts';
import { DERIVED_SESSION_PREFIX } from '../write/agentSession.ts';
import { rowFromRecord } from '../write/rowCodec.ts';
import { IS_ERROR, UNPRICED } from './queries.ts';
import { StatementCache } from './statementCache.ts';
import { maskedRows, maskNow, NO_SECRETS, type SecretsNow } from './secretsNow.ts';

/** A session's figures over its rows; `WHERE` comes after. */
const AGGREGATE = `SELECT agent_session_id AS id, COUNT(*) AS turns, MIN(started_at_ms) AS startedAtMs,
    MAX(started_at_ms) AS lastStartedAtMs, MAX(started_at_ms + COALESCE(duration_ms, 0)) AS endMs,
    TOTAL(cost_credits) AS costCredits, COALESCE(SUM(${UNPRICED}), 0) AS unpricedTurns,
    COALESCE(SUM(${IS_ERROR}), 0) AS errors
  FROM requests`;

/** The first turn's client, and the first line of the earliest turn that has one (a first probe may have none). */
const FIRST_TURN = `SELECT client_name, (SELECT summary FROM requests WHERE agent_session_id = ? AND summary IS NOT NULL
    ORDER BY started_at_ms, id LIMIT 1) AS summary
  FROM requests WHERE agent_session_id = ? ORDER BY started_at_ms, id LIMIT 1`;

export interface SessionListQuery {
  /** The last session of the previous page (its latest turn's start and its id). */
  beforeCursor?: RequestCursor;
  limit: number;
}

export interface SessionTurnsQuery {
  /** The last turn of the previous page; the page starts after it. */
  afterCursor?: RequestCursor;
  limit: number;
}

/**
 * Read side of agent sessions: the requests sharing an agent_session_id, grouped. Each query walks
 * the partial index on (agent_session_id, started_at_ms); statements are cached.
 */
export class SessionQueries {
  private readonly statements: StatementCache;
  private readonly secretsNow: SecretsNow;

  /** Rows and first prompts are read masked with the secrets known now (secretsNow.ts). */
  constructor(db: DatabaseSync, secretsNow: SecretsNow = NO_SECRETS) {
    this.statements = new StatementCache(db);
    this.secretsNow = secretsNow;
  }

  /**
   * Sessions by their latest turn, newest first; one more than asked tells whether another page
   * exists. The page is chosen from the session index alone (it holds each session's start
   * times), and only its sessions are summed: grouping every row with its figures took 1.4 s for
   * 100 000 sessions, this about 0.1 s.
   */
  listSessions(query: SessionListQuery): { sessions: AgentSessionSummary[]; hasMore: boolean } {
    const cursor = query.beforeCursor;
    const page = this.statements
      .get(
        `SELECT agent_session_id AS id, MAX(started_at_ms) AS lastStartedAtMs FROM requests
       WHERE agent_session_id IS NOT NULL GROUP BY agent_session_id
       ${cursor ? 'HAVING (MAX(started_at_ms), agent_session_id) < (?, ?)' : ''}
       ORDER BY lastStartedAtMs DESC, id DESC LIMIT ?`,
      )
      .all(...(cursor ? [cursor.startedAtMs, cursor.id] : []), query.limit + 1);
    return {
      sessions: page.slice(0, query.limit).map((record) => this.session(String(record.id)) as AgentSessionSummary),
      hasMore: page.length > query.limit,
    };
  }

  /** One session's figures; null when no row carries the id (never seen, or retention removed it). */
  session(sessionId: string): AgentSessionSummary | null {
    const record = this.statements.get(`${AGGREGATE} WHERE agent_session_id = ? GROUP BY agent_session_id`).get(sessionId);
    return record === undefined ? null : this.summaryOf(record);
  }

  /** A page of the session's requests, oldest first, and how many come before the page. */
  turns(sessionId: string, query: SessionTurnsQuery): { rows: RequestLogRow[]; turnsBefore: number; hasMore: boolean } {
    const cursor = query.afterCursor;
    const records = this.statements
      .get(
        `SELECT * FROM requests WHERE agent_session_id = ? ${cursor ? 'AND (started_at_ms, id) > (?, ?)' : ''}
       ORDER BY started_at_ms, id LIMIT ?`,
      )
      .all(sessionId, ...(cursor ? [cursor.startedAtMs, cursor.id] : []), query.limit + 1);
    const turnsBefore = cursor
      ? Number(
          this.statements
            .get('SELECT COUNT(*) AS n FROM requests WHERE agent_session_id = ? AND (started_at_ms, id) <= (?, ?)')
            .get(sessionId, cursor.startedAtMs, cursor.id)?.n ?? 0,
        )
      : 0;
    return {
      rows: maskedRows(records.slice(0, query.limit).map(rowFromRecord), this.secretsNow),
      turnsBefore,
      hasMore: records.length > query.limit,
    };
  }

  /** The session's last `limit` requests up to and including `cursor`, oldest first: what a page's first turns compare with. */
  turnsThrough(sessionId: string, cursor: RequestCursor, limit: number): RequestLogRow[] {
    const rows = this.statements
      .get(
        `SELECT * FROM requests WHERE agent_session_id = ? AND (started_at_ms, id) <= (?, ?)
       ORDER BY started_at_ms DESC, id DESC LIMIT ?`,
      )
      .all(sessionId, cursor.startedAtMs, cursor.id, limit)
      .map(rowFromRecord)
      .reverse();
    return maskedRows(rows, this.secretsNow);
  }

  private summaryOf(record: Record<string, unknown>): AgentSessionSummary {
    const id = String(record.id);
    const first = this.statements.get(FIRST_TURN).get(id, id);
    const startedAtMs = Number(record.startedAtMs);
    return {
      id,
      source: id.startsWith(DERIVED_SESSION_PREFIX) ? 'derived' : 'agent',
      clientName: typeof first?.client_name === 'string' ? first.client_name : null,
      firstPrompt: typeof first?.summary === 'string' ? (maskNow(this.secretsNow)?.(first.summary) ?? first.summary) : null,
      startedAtMs,
      durationMs: Math.max(0, Number(record.endMs) - startedAtMs),
      turns: Number(record.turns),
      costCredits: Number(record.costCredits),
      unpricedTurns: Number(record.unpricedTurns),
      errors: Number(record.errors),
      lastStartedAtMs: Number(record.lastStartedAtMs),
    };
  }
}
