import type { DatabaseSync } from 'node:sqlite';
import {
  FACET_DIMENSIONS,
  MAX_PAGE_LIMIT,
  type FacetCounts,
  type FacetDimension,
  type LogTotals,
  type ModelStats,
  type StoredRequest,
  type RequestListFilter,
  type RequestPage,
  type SpendByDayQuery,
  type SpendByDayRow,
  type SpendSinceQuery,
  type TimeRange,
  type TotalsQuery,
} from '../../contracts/log.ts';
import { LOCAL_ERROR_CLASSES, UPSTREAM_ERROR_CLASSES } from '../../contracts/errors.ts';
import { summarizeModelStats } from './modelStats.ts';
import { bodiesFromRecord, rowFromRecord } from '../write/rowCodec.ts';
import { StatementCache } from './statementCache.ts';
import { foldSmallGroups } from './spendGroupFold.ts';
import { leftSpendBalance, withLeftSpendMoved, type LeftSpendMove } from './leftSpend.ts';
import { spanOf, type SpendSpan } from './spendSpan.ts';
import type { LocalBucket } from '../../core/localPeriods.ts';
import {
  maskedFacetCounts,
  maskedRows,
  maskedSpendGroups,
  maskedStoredRequest,
  maskNow,
  NO_SECRETS,
  type SecretsNow,
} from './secretsNow.ts';

type SqlParam = string | number;

/**
 * A request the model answered (usage reported or estimated) whose model has no price. A failed
 * or refused request without usage has no cost either, but it is not "unpriced".
 */
export const UNPRICED = '(cost_credits IS NULL AND usage_source IS NOT NULL)';

/** A request the model answered whose gateway stated no charge of its own (gateway_cost): a sum of statements leaves it out. */
const UNSTATED = '(gateway_cost IS NULL AND usage_source IS NOT NULL)';

export const DEFAULT_PAGE_LIMIT = 100;

/** An error is anything classified as one or answered with a 4xx/5xx status. */
export const IS_ERROR = '(error_class IS NOT NULL OR status >= 400)';
const MODEL = 'COALESCE(upstream_model, requested_model)';
/** Airlock's own refusals never reached the model: they say nothing about it (a client hanging up may have). */
const REFUSALS = LOCAL_ERROR_CLASSES.filter((errorClass) => errorClass !== 'client_aborted');
const NOT_LOCAL_REFUSAL = `(error_class IS NULL OR error_class NOT IN (${REFUSALS.map((errorClass) => `'${errorClass}'`).join(', ')}))`;
/** A model's error: the gateway's failure, not a client hanging up. */
const IS_GATEWAY_ERROR = `(error_class IN (${UPSTREAM_ERROR_CLASSES.map((errorClass) => `'${errorClass}'`).join(', ')}) OR (error_class IS NULL AND status >= 400))`;
const GROUP_COLUMNS = { model: MODEL, profile: 'profile_id', client: 'client_name', session: 'agent_session_id' } as const;
const FACET_COLUMNS: Record<FacetDimension, string> = {
  status: 'status',
  errorClass: 'error_class',
  model: MODEL,
  client: 'client_name',
  profile: 'profile_id',
  endpoint: 'client_path',
};
/** Enough values to choose from in a menu; the rest are reached by typing. */
const FACET_LIMIT = 30;
/** Trigram tokens need three characters; shorter terms fall back to a substring scan. */
const MIN_FTS_TERM_CHARS = 3;
/**
 * Text also matches these row fields, as the window's filter does for rows arriving live
 * (renderer/src/live/liveRows.ts): a row shown live then stays in the list on reload.
 */
const TEXT_ROW_COLUMNS = ['client_path', 'requested_model', 'upstream_model', 'response_model', 'client_name'] as const;
/** Any of `columns` containing the LIKE pattern, bound once per column. ASCII letters match in either case. */
function likeAny(columns: readonly string[]): string {
  return columns.map((column) => `${column} LIKE ? ESCAPE '\\'`).join(' OR ');
}
const ROW_LIKE = likeAny(TEXT_ROW_COLUMNS);
/** A body (`b`) containing the pattern. */
const BODY_LIKE = likeAny(['b.request_body', 'b.response_body', 'b.stream_text']);
/** Rows whose request body holds a piece (`c`) of body_chunks: a piece found maps to every body holding it. */
const ROWS_OF_CHUNK = 'JOIN request_body_chunks r ON r.chunk_id = c.chunk_id JOIN request_bodies b ON b.body_id = r.body_id';
const CHUNK_LIKE = "c.text LIKE ? ESCAPE '\\'";

/** Trigrams the full-text query asks for: enough to narrow a search to few bodies, whatever the text's length. */
const MAX_QUERY_TRIGRAMS = 32;

/**
 * An FTS5 query for bodies holding every trigram of `text` (up to MAX_QUERY_TRIGRAMS of them),
 * each quoted so the user's text is never parsed as FTS syntax. The index keeps no positions, so
 * this finds candidates; a LIKE on them confirms the substring.
 */
export function trigramQuery(text: string): string {
  const chars = [...text];
  const trigrams = new Set<string>();
  for (let start = 0; start + 3 <= chars.length && trigrams.size < MAX_QUERY_TRIGRAMS; start += 1)
    trigrams.add(chars.slice(start, start + 3).join(''));
  return [...trigrams].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' AND ');
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/**
 * The forms `text` takes inside a JSON body: as typed, JSON-escaped (a quote, a backslash, a line
 * break), and with every character outside ASCII as \uXXXX too, as Python's json.dumps writes by
 * default. The window shows bodies decoded, so a search typed from it must find each form.
 */
export function jsonForms(text: string): string[] {
  const escaped = JSON.stringify(text).slice(1, -1);
  const asciiOnly = escaped.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([text, escaped, asciiOnly])];
}

/**
 * The ids of requests whose bodies hold `text`. Indexed bodies through the index, bodies still
 * waiting for it by a scan of those few; request bodies stored as pieces (ChunkStore) are searched
 * piece by piece, each piece once. Text shorter than a trigram is a scan of every body.
 */
function bodiesHolding(text: string): { sql: string; params: SqlParam[] } {
  const pattern = likePattern(text);
  const bodyPatterns = [pattern, pattern, pattern];
  if ([...text].length < MIN_FTS_TERM_CHARS) {
    return {
      sql: `id IN (SELECT request_id FROM request_bodies b WHERE ${BODY_LIKE})
          OR id IN (SELECT b.request_id FROM body_chunks c ${ROWS_OF_CHUNK} WHERE ${CHUNK_LIKE})`,
      params: [...bodyPatterns, pattern],
    };
  }
  return {
    sql: `id IN (SELECT b.request_id FROM request_bodies_fts f JOIN request_bodies b ON b.body_id = f.rowid
                WHERE request_bodies_fts MATCH ? AND (${BODY_LIKE}))
          OR id IN (SELECT b.request_id FROM request_bodies_unindexed u JOIN request_bodies b USING (body_id) WHERE ${BODY_LIKE})
          OR id IN (SELECT b.request_id FROM body_chunks_fts f JOIN body_chunks c ON c.chunk_id = f.rowid ${ROWS_OF_CHUNK}
                WHERE body_chunks_fts MATCH ? AND ${CHUNK_LIKE})
          OR id IN (SELECT b.request_id FROM body_chunks_unindexed u JOIN body_chunks c USING (chunk_id) ${ROWS_OF_CHUNK} WHERE ${CHUNK_LIKE})`,
    params: [trigramQuery(text), ...bodyPatterns, ...bodyPatterns, trigramQuery(text), pattern, pattern],
  };
}

export function clampPageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_LIMIT;
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, Math.floor(limit)));
}

/** The WHERE clause and parameters for a list filter (without the cursor). */
export function whereForFilter(filter: RequestListFilter): { sql: string; params: SqlParam[] } {
  const clauses: string[] = [];
  const params: SqlParam[] = [];
  const add = (clause: string, ...values: SqlParam[]): void => {
    clauses.push(clause);
    params.push(...values);
  };
  if (filter.fromMs !== undefined) add('started_at_ms >= ?', filter.fromMs);
  if (filter.toMs !== undefined) add('started_at_ms < ?', filter.toMs);
  if (filter.profileId !== undefined) add('profile_id = ?', filter.profileId);
  if (filter.clientName !== undefined) add('client_name = ?', filter.clientName);
  if (filter.clientPath !== undefined) add('client_path = ?', filter.clientPath);
  // `gpt-4*` is every model id that starts with gpt-4; anything else is one exact id.
  if (filter.model?.endsWith('*')) add(`${MODEL} LIKE ? ESCAPE '\\'`, `${escapeLike(filter.model.slice(0, -1))}%`);
  else if (filter.model !== undefined) add(`${MODEL} = ?`, filter.model);
  if (filter.errorClass !== undefined) add('error_class = ?', filter.errorClass);
  if (filter.status === 'error') add(IS_ERROR);
  else if (filter.status === 'ok') add(`NOT ${IS_ERROR} AND status IS NOT NULL`);
  else if (filter.status !== undefined) add('status = ?', filter.status);
  const text = filter.text?.trim();
  if (text) {
    const forms = jsonForms(text).map(bodiesHolding);
    const rowPatterns = TEXT_ROW_COLUMNS.map(() => likePattern(text));
    add(`(${[...forms.map((form) => form.sql), ROW_LIKE].join(' OR ')})`, ...forms.flatMap((form) => form.params), ...rowPatterns);
  }
  return { sql: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, params };
}

/** Read side of the request log. Every method is one indexed query (statements are cached). */
export class RequestLogQueries {
  private readonly statements: StatementCache;
  private readonly secretsNow: SecretsNow;

  /** Rows and bodies are read masked with the secrets known now (secretsNow.ts). */
  constructor(db: DatabaseSync, secretsNow: SecretsNow = NO_SECRETS) {
    this.statements = new StatementCache(db);
    this.secretsNow = secretsNow;
  }

  listRequests(filter: RequestListFilter): RequestPage {
    const limit = clampPageLimit(filter.limit);
    const where = whereForFilter(filter);
    let sql = where.sql;
    const params = [...where.params];
    if (filter.beforeCursor !== undefined) {
      sql += `${sql ? ' AND' : 'WHERE'} (started_at_ms, id) < (?, ?)`;
      params.push(filter.beforeCursor.startedAtMs, filter.beforeCursor.id);
    }
    // One extra row tells whether another page exists without a COUNT.
    const records = this.statements
      .get(`SELECT * FROM requests ${sql} ORDER BY started_at_ms DESC, id DESC LIMIT ?`)
      .all(...params, limit + 1);
    const rows = maskedRows(records.slice(0, limit).map(rowFromRecord), this.secretsNow);
    const last = rows.at(-1);
    const nextCursor = records.length > limit && last !== undefined ? { startedAtMs: last.startedAtMs, id: last.id } : null;
    return { rows, nextCursor };
  }

  /** Per dimension, the FACET_LIMIT most frequent values among the requests `filter` matches (page fields ignored). */
  facets(filter: RequestListFilter): FacetCounts {
    const where = whereForFilter(filter);
    const counts = {} as FacetCounts;
    for (const dimension of FACET_DIMENSIONS) {
      const column = FACET_COLUMNS[dimension];
      const records = this.statements
        .get(
          `SELECT ${column} AS value, COUNT(*) AS count FROM requests ${where.sql} ${where.sql ? 'AND' : 'WHERE'} ${column} IS NOT NULL
         GROUP BY value ORDER BY count DESC, value LIMIT ${FACET_LIMIT}`,
        )
        .all(...where.params);
      counts[dimension] = maskedFacetCounts(
        records.map((record) => ({ value: String(record.value), count: Number(record.count) })),
        this.secretsNow,
      );
    }
    return counts;
  }

  getRequest(id: string): StoredRequest | null {
    const record = this.statements.get('SELECT * FROM requests WHERE id = ?').get(id);
    if (record === undefined) return null;
    const bodies = this.statements.get('SELECT * FROM request_bodies WHERE request_id = ?').get(id);
    if (bodies === undefined) return maskedStoredRequest({ row: rowFromRecord(record), bodies: null }, this.secretsNow);
    const stored = bodiesFromRecord(bodies);
    const pieced = this.requestBodyFromChunks(Number(bodies.body_id));
    return maskedStoredRequest(
      { row: rowFromRecord(record), bodies: pieced === null ? stored : { ...stored, requestBody: pieced } },
      this.secretsNow,
    );
  }

  /**
   * A request body stored as pieces, joined back into its exact text; null if it was stored whole
   * (or deleted meanwhile). One statement, so one snapshot: retention on the log thread cannot
   * delete pieces between reading the list and reading them.
   */
  private requestBodyFromChunks(bodyId: number): string | null {
    const pieces = this.statements
      .get(
        `SELECT c.text AS text FROM request_body_chunk_lists l, json_each(l.chunk_ids) j
       LEFT JOIN body_chunks c ON c.chunk_id = j.value WHERE l.body_id = ? ORDER BY j.key`,
      )
      .all(bodyId);
    if (pieces.length === 0) return null;
    // Pieces go only with the last body holding them (triggers in schema.ts): one missing is damage.
    if (pieces.some((piece) => piece.text === null))
      throw new Error(`The request log is damaged: request body ${bodyId} lost some of its pieces.`);
    return pieces.map((piece) => String(piece.text)).join('');
  }

  /** The ids of the replays of request `id`, oldest first (requests_replay_of). */
  replaysOf(id: string): string[] {
    return this.statements
      .get('SELECT id FROM requests WHERE replay_of = ? ORDER BY started_at_ms, id')
      .all(id)
      .map((record) => String(record.id));
  }

  /** `localBuckets`: the local days or hours, when cut on another thread (spanOf). */
  spendByDay(query: SpendByDayQuery, localBuckets?: readonly LocalBucket[]): SpendByDayRow[] {
    const group = query.groupBy === null ? 'NULL' : GROUP_COLUMNS[query.groupBy];
    const sums = `${group} AS grp, COUNT(*) AS requests, TOTAL(cost_credits) AS costCredits, SUM(${UNPRICED}) AS unpricedRequests,
         TOTAL(input_tokens) AS inputTokens, TOTAL(output_tokens) AS outputTokens,
         SUM(gateway_cost) AS gatewayCost, SUM(${UNSTATED}) AS unstatedRequests,
         json_group_array(DISTINCT profile_id) FILTER (WHERE gateway_cost IS NOT NULL AND profile_id IS NOT NULL) AS gatewayCostProfiles`;
    const span = spanOf(query, localBuckets);
    const where = span.where === null ? '' : `WHERE ${span.where}`;
    const records = this.statements
      .get(`SELECT ${span.day} AS day, ${sums} FROM ${span.from} ${where} GROUP BY day, grp ORDER BY day, grp`)
      .all(...span.params);
    const rows: SpendByDayRow[] = records.map((record) => ({
      day: String(record.day),
      group: record.grp === null ? null : String(record.grp),
      requests: Number(record.requests),
      costCredits: Number(record.costCredits),
      unpricedRequests: Number(record.unpricedRequests),
      inputTokens: Number(record.inputTokens),
      outputTokens: Number(record.outputTokens),
      // SUM, not TOTAL: NULL when no request stated a charge, which is no charge of 0.
      gatewayCost: record.gatewayCost === null ? null : Number(record.gatewayCost),
      gatewayCostProfiles: (JSON.parse(String(record.gatewayCostProfiles)) as string[]).sort(),
      unstatedRequests: Number(record.unstatedRequests),
    }));
    const grouped =
      query.groupBy === 'profile'
        ? withLeftSpendMoved(rows, this.#leftSpendMoves(span))
        : // Models and client names are logged text, masked like the rows; a session id is kept as the key its session is found by.
          query.groupBy === 'model' || query.groupBy === 'client'
          ? maskedSpendGroups(rows, this.secretsNow)
          : rows;
    return query.groupBy === null || query.maxGroups === undefined ? grouped : foldSmallGroups(grouped, query.groupBy, query.maxGroups);
  }

  /** The fallback hop costs of a span's rows (leftSpend.ts), bucketed as its rows are. */
  #leftSpendMoves(span: SpendSpan): LeftSpendMove[] {
    const where = span.where === null ? '' : `${span.where} AND`;
    return this.statements
      .get(
        `SELECT ${span.day} AS day, requests.profile_id AS answered, hop.value ->> 'profileId' AS leftOn,
                TOTAL(hop.value ->> 'costCredits') AS credits
         FROM ${span.from} CROSS JOIN json_each(requests.fallback_chain) hop
         WHERE ${where} requests.fallback_chain IS NOT NULL AND requests.profile_id IS NOT NULL AND hop.value ->> 'costCredits' IS NOT NULL
         GROUP BY day, answered, leftOn`,
      )
      .all(...span.params)
      .map((record) => ({
        day: String(record.day),
        answered: String(record.answered),
        left: String(record.leftOn),
        credits: Number(record.credits),
      }));
  }

  totals(query: TotalsQuery): LogTotals {
    const where = whereForFilter(query);
    const record = this.statements
      .get(
        `SELECT COUNT(*) AS requests, COALESCE(SUM(${IS_ERROR}), 0) AS errors, TOTAL(cost_credits) AS costCredits,
         COALESCE(SUM(${UNPRICED}), 0) AS unpricedRequests,
         TOTAL(input_tokens) AS inputTokens, TOTAL(output_tokens) AS outputTokens,
         TOTAL(cached_input_tokens) AS cachedInputTokens, TOTAL(reasoning_tokens) AS reasoningTokens
       FROM requests ${where.sql}`,
      )
      .get(...where.params);
    return {
      requests: Number(record?.requests ?? 0),
      errors: Number(record?.errors ?? 0),
      costCredits: Number(record?.costCredits ?? 0),
      unpricedRequests: Number(record?.unpricedRequests ?? 0),
      inputTokens: Number(record?.inputTokens ?? 0),
      outputTokens: Number(record?.outputTokens ?? 0),
      cachedInputTokens: Number(record?.cachedInputTokens ?? 0),
      reasoningTokens: Number(record?.reasoningTokens ?? 0),
    };
  }

  /**
   * Per model: counts, error rate, p50/p95 of duration and time to first byte. One indexed range
   * scan returns compact arrays; grouping and sorting in JS beats ranking window functions in SQL.
   */
  modelStats(range: TimeRange): ModelStats[] {
    const sql = `SELECT ${MODEL}, ${IS_GATEWAY_ERROR}, duration_ms, ttfb_ms FROM requests
       WHERE started_at_ms >= ? AND started_at_ms < ? AND ${MODEL} IS NOT NULL AND ${NOT_LOCAL_REFUSAL}`;
    const records = this.statements.get(sql, { returnArrays: true }).all(range.fromMs, range.toMs) as unknown as Array<
      [string, number, number | null, number | null]
    >;
    // Masked before grouping, so models whose names mask alike are summarized as one.
    const mask = maskNow(this.secretsNow);
    return summarizeModelStats(
      records.map(([model, isError, durationMs, ttfbMs]) => ({
        model: mask === null ? model : mask(model),
        isError: isError === 1,
        durationMs,
        ttfbMs,
      })),
    );
  }

  /**
   * Credits spent since a moment (priced requests only), for budget checks. A profile's are its own:
   * a row another profile answered after a fallback carries the runs it left on it in its chain
   * (FallbackHop.costCredits), which count here and not for the answering profile.
   */
  spendSince(query: SpendSinceQuery): number {
    const where = whereForFilter({ fromMs: query.sinceMs, profileId: query.profileId, clientName: query.clientName });
    const record = this.statements.get(`SELECT TOTAL(cost_credits) AS costCredits FROM requests ${where.sql}`).get(...where.params);
    const rowsCredits = Number(record?.costCredits ?? 0);
    return query.profileId === undefined ? rowsCredits : rowsCredits + leftSpendBalance(this.statements, query.profileId, query.sinceMs);
  }
}
