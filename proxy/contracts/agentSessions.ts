import type { RequestSummary } from './requests.ts';

/**
 * An agent's session as the window and `airlock sessions` show it: the requests that share an
 * agent session id (an agent's own session header, or a conversation Airlock recognised by its
 * opening), and each one as a turn with what changed since the turn before. The log reads the id
 * with the request's bodies when it ends: a turn joins its session once it has ended.
 */

/** One session in the list, newest activity first. */
export interface AgentSessionSummary {
  id: string;
  /** The agent sent this id (Claude Code, Codex, opencode) or Airlock derived it from the conversation's opening. */
  source: 'agent' | 'derived';
  /** The client token's name of the first turn. */
  clientName: string | null;
  /** The first line of the first turn's prompt. */
  firstPrompt: string | null;
  startedAtMs: number;
  /** Start of the first turn to the end of the last one. */
  durationMs: number;
  turns: number;
  costCredits: number;
  /** Turns the model answered whose model has no price: the cost is then a lower bound. */
  unpricedTurns: number;
  errors: number;
  /** The latest turn's start: the list's order. */
  lastStartedAtMs: number;
}

export interface AgentSessionPage {
  items: AgentSessionSummary[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

/**
 * One piece of a conversation, the same for chat, Messages and Responses. Texts longer than
 * TIMELINE_TEXT_MAX_CHARS are cut (`cut` says so); the request's own detail has them whole.
 */
export type ConversationItem =
  | { kind: 'system' | 'user' | 'assistant' | 'reasoning'; text: string; cut?: true }
  | { kind: 'tool_call'; name: string; callId: string | null; text: string; cut?: true }
  | { kind: 'tool_result'; callId: string | null; text: string; isError: boolean; cut?: true }
  | { kind: 'image' };

export const TIMELINE_TEXT_MAX_CHARS = 4_000;

/**
 * What the client sent this turn against the turn before: `first` (the session's first turn),
 * `appended` (the earlier history unchanged, new items after it), `rewritten` (the history changed:
 * compacted, edited, or another conversation under the same id) or `unknown` (a body missing or
 * cut at the log's limit, or not JSON).
 */
export interface TurnChange {
  kind: 'first' | 'appended' | 'rewritten' | 'unknown';
  /**
   * The earlier turn compared with: of the few before, the one this request shares the most history
   * with (an agent's side requests, a title or a quota check, run between its main turns).
   */
  sinceTurn: number | null;
  /** Items of the earlier request this one still starts with. */
  keptItems: number;
  /** Items of the earlier request no longer there (`rewritten` only). */
  droppedItems: number;
  /** Leading new items that only repeat the model's previous answer back to it. */
  echoedAnswerItems: number;
  /** The new items the client added: user messages, tool results, instructions. */
  added: ConversationItem[];
  /** Why the change is `unknown`. */
  reason?: string;
}

export interface SessionTurn {
  /** 1-based place in the session. */
  index: number;
  request: RequestSummary;
  errorMessage: string | null;
  change: TurnChange;
  /** The model's answer: text, reasoning, tool calls; null when no answer body was kept or it did not parse. */
  answer: ConversationItem[] | null;
}

export interface AgentSessionTimeline {
  session: AgentSessionSummary;
  /** Oldest first, from the page's cursor on. */
  turns: SessionTurn[];
  /** Pass back as `cursor` for the next (later) turns; null at the end. */
  nextCursor: string | null;
}

/** Turns per timeline page: a page reads each turn's bodies (up to a megabyte each, about 10 ms a turn). */
export const DEFAULT_TURN_PAGE_LIMIT = 20;
export const MAX_TURN_PAGE_LIMIT = 200;
export const DEFAULT_SESSION_PAGE_LIMIT = 50;
export const MAX_SESSION_PAGE_LIMIT = 500;
