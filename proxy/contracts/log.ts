import type { ErrorClass } from './errors.ts';
import type { GatewayKeyUse } from './keyPool.ts';
import type { ClientProtocol, ProtocolMode } from './usage.ts';

/**
 * The request log as the window and the budgets see it. Plain data only (no Node APIs): the
 * renderer imports these types, the proxy's log module (proxy/log/) produces them.
 */

/** `interrupted`: the process ended (crash, kill) while the request was still in flight. */
export type RequestState = 'in_flight' | 'done' | 'interrupted';

/** Whether token counts came from the upstream or from Airlock's own tokenizer. */
export type UsageSource = 'reported' | 'estimated';

/**
 * One step of the way a request took when it fell back (proxy/forward/fallback.ts): the profile
 * and model tried, and how it ended. A step skipped without being sent (a budget, a missing
 * profile) has no status and says why in `note`.
 */
export interface FallbackHop {
  profileId: string;
  model: string | null;
  status: number | null;
  errorClass: ErrorClass | null;
  note?: string;
  /**
   * What the request's runs on this hop's profile may be billed with no usage stated (504s before it
   * fell back to another profile), when priced: on the first hop sent to each profile the request
   * left. Part of the row's `costCredits`, but that profile's spend, not the answering one's.
   */
  costCredits?: number;
}

/** Spend of one profile within a request another profile answered (its runs a fallback left). */
export interface ProfileSpend {
  profileId: string;
  costCredits: number;
}

export interface RequestLogRow {
  /** Airlock's request id. */
  id: string;
  upstreamRequestId: string | null;
  startedAtMs: number;
  ttfbMs: number | null;
  durationMs: number | null;
  /** The client token's name. */
  clientName: string | null;
  profileId: string | null;
  method: string;
  clientPath: string;
  upstreamPath: string;
  protocol: ClientProtocol;
  protocolMode: ProtocolMode;
  requestedModel: string | null;
  upstreamModel: string | null;
  responseModel: string | null;
  /** The response names another model than the one sent upstream (a gateway may rewrite it). */
  modelMismatch: boolean;
  stream: boolean;
  /** What Airlock changed on the way (fields a translation dropped, say). */
  notes: string[];
  status: number | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  /** The failure's code (lifecycle end event); null when it had none, and on rows written before migration 16 kept it. */
  errorCode: string | null;
  retries: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  reasoningTokens: number | null;
  /** null means unpriced (never shown as 0). */
  costCredits: number | null;
  /** What the gateway said it charged, in its own unit (TokenUsage.gatewayCost); absent when it said nothing. */
  gatewayCost?: number;
  usageSource: UsageSource | null;
  state: RequestState;
  /**
   * The agent's session: its own id (Claude Code's x-claude-code-session-id, Codex's session-id or
   * thread-id), else `conv-` and a hash of the client token and the conversation's opening.
   */
  agentSessionId: string | null;
  /** The first line of the last user message, or of the answer when there is none; masked, ~120 chars. */
  summary: string | null;
  /** A pooled profile's key for each attempt, in order (id and label, never the key); absent for a single key. */
  gatewayKeys?: GatewayKeyUse[];
  /** Every step when the request fell back, the first being the profile and model it was sent to; absent when it did not. */
  fallbackChain?: FallbackHop[];
  /** The request this one resent (a replay from the window or \`airlock replay\`); null for a client's own request. */
  replayOf: string | null;
}

/** An ended request's one-line summary as the log wrote it (masked), for the window's live rows. */
export interface EndedRowSummary {
  requestId: string;
  summary: string;
}

/** Stored bodies: capped, masked, headers from an allowlist only. */
export interface RequestBodiesRecord {
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  requestBody: string | null;
  requestTruncated: boolean;
  /** Non-streaming responses. */
  responseBody: string | null;
  responseTruncated: boolean;
  /** Streams: the assembled assistant text. */
  streamText: string | null;
  /** Streams: the raw SSE events as received. */
  rawEvents: string | null;
  /** Streams: each raw event's arrival in ms since the request started, in order; null when not recorded (rows logged before). */
  rawEventOffsetsMs: number[] | null;
}

/** A request as the log stores it: its row and bodies (the control API shows it as contracts/requests.ts's RequestDetail). */
export interface StoredRequest {
  row: RequestLogRow;
  /** null when bodies were never logged or retention removed them. */
  bodies: RequestBodiesRecord | null;
}

/** Keyset cursor: the last row of the previous page. */
export interface RequestCursor {
  startedAtMs: number;
  id: string;
}

export const MAX_PAGE_LIMIT = 500;

export interface RequestListFilter {
  fromMs?: number;
  /** Exclusive. */
  toMs?: number;
  profileId?: string;
  /** The model sent upstream (the requested one when none was sent), as in ModelStats; `prefix*` matches every id starting with prefix. */
  model?: string;
  /** An exact status, or every error / every success. */
  status?: number | 'error' | 'ok';
  errorClass?: ErrorClass;
  clientName?: string;
  /** The path the client called, exactly (`/v1/chat/completions`). */
  clientPath?: string;
  /** Full text over request and response bodies and streamed text. */
  text?: string;
  beforeCursor?: RequestCursor;
  /** At most MAX_PAGE_LIMIT. */
  limit?: number;
}

/** What the Live screen's facets count, each a column of the log. */
export const FACET_DIMENSIONS = ['status', 'errorClass', 'model', 'client', 'profile', 'endpoint'] as const;
export type FacetDimension = (typeof FACET_DIMENSIONS)[number];
/** The most frequent values of each dimension among the matching requests, most frequent first. */
export type FacetCounts = Record<FacetDimension, { value: string; count: number }[]>;

export interface RequestPage {
  /** Newest first. */
  rows: RequestLogRow[];
  /** Pass as `beforeCursor` for the next page; null on the last page. */
  nextCursor: RequestCursor | null;
}

export interface TimeRange {
  fromMs: number;
  /** Exclusive. */
  toMs: number;
}

export type SpendGroupBy = 'model' | 'profile' | 'client' | 'session' | null;

export interface SpendByDayQuery extends TimeRange {
  groupBy: SpendGroupBy;
  /** 'hour' names each row 'YYYY-MM-DD HH' (the database's rows only: requests waiting for disk space have no hour). */
  bucket?: 'day' | 'hour';
  /** A fixed offset, in minutes east of UTC, that defines a "day"; without it, the proxy's local time zone with each date's own offset. */
  utcOffsetMinutes?: number;
  /** At most this many groups, those that cost most; the rest are summed as one (store/read/spendGroupFold.ts). */
  maxGroups?: number;
}

export interface SpendByDayRow {
  /** YYYY-MM-DD in the query's time zone. */
  day: string;
  /** The model, profile or client name; null when ungrouped or unknown. */
  group: string | null;
  requests: number;
  costCredits: number;
  /** Requests without a price: their cost is unknown, not zero. */
  unpricedRequests: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * What the gateway itself stated it charged (RequestLogRow.gatewayCost), summed in its own unit and
   * never added to the credits; null when no request stated one.
   */
  gatewayCost: number | null;
  /**
   * The profiles whose gateways stated those charges, sorted: each states in its own unit (OpenRouter
   * credits, LiteLLM USD), so a sum over more than one is no figure at all.
   */
  gatewayCostProfiles: string[];
  /** Requests the model answered (usage reported or estimated) without such a statement: `gatewayCost` leaves them out. */
  unstatedRequests: number;
}

/** A day's group with nothing counted yet, for spend added to the database's rows (unwritten spend, a fallback's left runs). */
export function emptySpendGroup(day: string, group: string | null): SpendByDayRow {
  return {
    day,
    group,
    requests: 0,
    costCredits: 0,
    unpricedRequests: 0,
    inputTokens: 0,
    outputTokens: 0,
    gatewayCost: null,
    gatewayCostProfiles: [],
    unstatedRequests: 0,
  };
}

export interface TotalsQuery extends TimeRange {
  profileId?: string;
  clientName?: string;
}

export interface LogTotals {
  requests: number;
  errors: number;
  costCredits: number;
  unpricedRequests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
}

export interface ModelStats {
  /** The model sent upstream (the requested one when none was sent). */
  model: string;
  requests: number;
  errors: number;
  /** errors / requests, 0..1. */
  errorRate: number;
  p50DurationMs: number | null;
  p95DurationMs: number | null;
  p50TtfbMs: number | null;
  p95TtfbMs: number | null;
}

export interface SpendSinceQuery {
  sinceMs: number;
  profileId?: string;
  clientName?: string;
}

export interface RequestLogStatus {
  /** True after a full disk (or the free-space floor): bodies are not logged. */
  bodiesDisabled: boolean;
  /** What is not being recorded (bodies, rows) and why, in words the window shows; null when everything is. */
  reason: string | null;
  /** Size of the database in bytes. */
  dbBytes: number;
  /** Requests whose rows are not in the database (a full disk); null when every request's row is. */
  unwritten: UnwrittenStatus | null;
  /** Why capped budgets are refused: spend Airlock cannot account for. null when there is none. */
  ledgerGap: LedgerGap | null;
}

export interface UnwrittenStatus {
  requests: number;
  costCredits: number;
  /** Rows waiting in memory, written once the database takes them again. */
  keptRows: number;
  /** Requests past that bound (or refused by the database): only their spend is kept. */
  foldedRequests: number;
  /** Whether their spend is saved outside the database, so a restart still counts it. */
  saved: boolean;
}

/** Spend that may be missing from the ledger, up to `lastLossMs`: caps whose period holds that moment cannot be checked. */
export interface LedgerGap {
  lastLossMs: number;
  /** What was lost, where, and the fix; said in refusals and in the window. */
  reason: string;
}

/**
 * A row's label for a cost counted at the input of `attempts` (e.g. "an attempt") the gateway had,
 * none of them stating usage: the live accounting's, and a crash's in-flight row's at the next start.
 */
export function unstatedInputNote(attempts: string): string {
  return `May be billed: the gateway had the prompt in ${attempts} that stated no usage, counted at the prompt's estimated input.`;
}
