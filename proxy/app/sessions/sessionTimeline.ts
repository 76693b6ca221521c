import { setImmediate as yieldToForwarding } from 'node:timers/promises';
import type { AgentSessionTimeline, ConversationItem, SessionTurn } from '../../contracts/agentSessions.ts';
import type { RequestCursor, StoredRequest, RequestLogRow } from '../../contracts/log.ts';
import { redactKnownSecrets } from '../../core/redact.ts';
import type { SessionQueries } from '../../store/read/sessionQueries.ts';
import { summaryOf } from '../control/mapping.ts';
import { answerItemsOfJson, requestItems } from './conversationItems.ts';
import { answerItemsOfStream } from './streamAnswer.ts';
import { turnChange, type EarlierTurn } from './turnChange.ts';

/**
 * A session's timeline, a page of turns at a time. Bodies are read through the log's request
 * detail (`getRequest`), whatever way the log stores them, and compared here.
 */

/** Earlier turns a turn is compared with: enough to step over an agent's side requests between two main turns. */
export const COMPARED_EARLIER_TURNS = 4;

/** Each read answered now (the CLI's own connection) or later (the proxy's reader thread). */
type NowOrLater<Reads> = {
  [Name in keyof Reads]: Reads[Name] extends (...args: infer Args) => infer Result ? (...args: Args) => Result | Promise<Result> : never;
};

export interface TimelineSource {
  sessions: NowOrLater<Pick<SessionQueries, 'session' | 'turns' | 'turnsThrough'>>;
  getRequest(id: string): StoredRequest | null | Promise<StoredRequest | null>;
}

export interface TimelinePageQuery {
  /** The last turn of the previous page. */
  afterCursor?: RequestCursor;
  limit: number;
  /** Masked in every text once more, as the request detail does. */
  knownSecrets: string[];
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The request as items, or why it cannot be read. */
function requestOf(detail: StoredRequest | null): { items: ConversationItem[] | null; reason: string } {
  const bodies = detail?.bodies ?? null;
  if (bodies === null || bodies.requestBody === null)
    return { items: null, reason: 'the log kept no request body (turned off, or removed by retention)' };
  if (bodies.requestTruncated) return { items: null, reason: "the request body was cut at the log's size limit" };
  const items = requestItems(parse(bodies.requestBody));
  return items === null ? { items: null, reason: 'the request is not a chat, Messages or Responses conversation' } : { items, reason: '' };
}

function answerOf(detail: StoredRequest | null): ConversationItem[] | null {
  const bodies = detail?.bodies ?? null;
  if (bodies === null) return null;
  if (bodies.rawEvents !== null) return answerItemsOfStream(bodies.rawEvents);
  if (bodies.responseBody === null || bodies.responseTruncated) return null;
  return answerItemsOfJson(parse(bodies.responseBody));
}

function masked(items: ConversationItem[] | null, secrets: string[]): ConversationItem[] | null {
  if (items === null || secrets.length === 0) return items;
  return items.map((item) => (item.kind === 'image' ? item : { ...item, text: redactKnownSecrets(item.text, secrets) }));
}

const cursorOf = (row: RequestLogRow): RequestCursor => ({ startedAtMs: row.startedAtMs, id: row.id });

/** A page of the session's turns with their changes; null when no request carries the session id. */
export async function sessionTimeline(
  source: TimelineSource,
  sessionId: string,
  query: TimelinePageQuery,
): Promise<{ timeline: Omit<AgentSessionTimeline, 'nextCursor'>; nextCursor: RequestCursor | null } | null> {
  const session = await source.sessions.session(sessionId);
  if (session === null) return null;
  const page = await source.sessions.turns(sessionId, {
    limit: query.limit,
    ...(query.afterCursor ? { afterCursor: query.afterCursor } : {}),
  });
  const earlierRows = query.afterCursor ? await source.sessions.turnsThrough(sessionId, query.afterCursor, COMPARED_EARLIER_TURNS) : [];
  // A turn's bodies take up to about 10 ms to read and compare (1 MB each): the proxy forwards on
  // this thread, so it gets a turn between them.
  const earlier: EarlierTurn[] = [];
  for (const [position, row] of earlierRows.entries()) {
    earlier.push({ index: page.turnsBefore - earlierRows.length + position + 1, items: requestOf(await source.getRequest(row.id)).items });
    await yieldToForwarding();
  }
  const turns: SessionTurn[] = [];
  for (const [position, row] of page.rows.entries()) {
    if (position > 0) await yieldToForwarding();
    const index = page.turnsBefore + position + 1;
    const detail = await source.getRequest(row.id);
    const request = requestOf(detail);
    const change = turnChange(earlier.slice(-COMPARED_EARLIER_TURNS), request.items, request.reason);
    earlier.push({ index, items: request.items });
    turns.push({
      index,
      request: summaryOf(row),
      errorMessage: row.errorMessage === null ? null : redactKnownSecrets(row.errorMessage, query.knownSecrets),
      change: { ...change, added: masked(change.added, query.knownSecrets) ?? [] },
      answer: masked(answerOf(detail), query.knownSecrets),
    });
  }
  const last = page.rows.at(-1);
  return { timeline: { session, turns }, nextCursor: page.hasMore && last !== undefined ? cursorOf(last) : null };
}
