import type { ErrorClass, ErrorExplanation } from './errors.ts';
import type { GatewayKeyUse } from './keyPool.ts';
import type { FallbackHop, RequestState } from './log.ts';
import type { ClientProtocol, ProtocolMode } from './usage.ts';

/** The control API's request log: the Live list (GET /requests), one request's detail and its bodies. */

/** `ok` = 2xx/3xx, `error` = anything else; a number = that exact status. */
export type StatusFilter = 'ok' | 'error' | number;

/** The longest search the log takes (UTF-16 units, as typed): each of its JSON forms becomes a LIKE pattern and trigram query. */
export const MAX_SEARCH_TEXT_CHARS = 500;
export const SEARCH_TEXT_TOO_LONG = `Search for at most ${MAX_SEARCH_TEXT_CHARS} characters: a shorter part of the text, one that few other requests hold, finds the request.`;

export interface RequestFilters {
  fromMs?: number;
  toMs?: number;
  profileId?: string;
  /** One model id, or `prefix*` for every id starting with prefix. */
  model?: string;
  client?: string;
  /** The path the client called, exactly. */
  path?: string;
  status?: StatusFilter;
  errorClass?: ErrorClass;
  /** Full text over bodies, paths and models. */
  text?: string;
}

/** GET /requests?…filters&cursor&limit — newest first, keyset paged. */
export interface RequestListQuery extends RequestFilters {
  cursor?: string;
  limit?: number;
}

/** One row of the Live list. */
export interface RequestSummary {
  id: string;
  startedAtMs: number;
  state: RequestState;
  clientName: string | null;
  profileId: string | null;
  method: string;
  clientPath: string;
  requestedModel: string | null;
  responseModel: string | null;
  stream: boolean;
  status: number | null;
  errorClass: ErrorClass | null;
  ttfbMs: number | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** null = unpriced (never shown as 0). */
  costCredits: number | null;
  usageEstimated: boolean;
  /** The agent's session (Claude Code's or Codex's session header, else the conversation Airlock recognised); null when neither. */
  agentSessionId: string | null;
  /** The first line of the prompt (or of the answer), masked; set once the log has the request. */
  summary: string | null;
  /** The steps it took when it fell back to another model or profile (the last answered); absent when it did not. */
  fallbackChain?: FallbackHop[];
  /** The request this one replayed; null for a client's own request. */
  replayOf: string | null;
}

export interface RequestPage {
  items: RequestSummary[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

/** A request or response body; large ones are fetched separately (GET /requests/:id/body/:part). */
export interface BodyView {
  sizeBytes: number;
  truncated: boolean;
  contentType: string | null;
  /** Present when the body is small enough to send with the detail; already masked. */
  text: string | null;
}

export type BodyPart = 'request' | 'response' | 'stream-events';

/** GET /requests/:id — everything about one request, masked. */
export interface RequestDetail extends RequestSummary {
  upstreamPath: string;
  upstreamRequestId: string | null;
  /** A pooled profile's key for each attempt, in order (id and label); absent for a profile with one key. */
  gatewayKeys?: GatewayKeyUse[];
  protocol: ClientProtocol;
  protocolMode: ProtocolMode;
  retries: number;
  /** The response named another model than the gateway was asked for (the gateway may rewrite it). */
  modelMismatch: boolean;
  upstreamModel: string | null;
  errorMessage: string | null;
  explanation: ErrorExplanation | null;
  cachedInputTokens: number | null;
  reasoningTokens: number | null;
  /** What the gateway said it charged, in its own unit, beside Airlock's `costCredits`; null when it said nothing. */
  gatewayCost: number | null;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  requestBody: BodyView | null;
  responseBody: BodyView | null;
  /** What Airlock changed on the way, and what the log did not keep of the request and why. */
  notes: string[];
  /** For streams: the assembled text, and the raw SSE events as received. */
  streamText: string | null;
  streamEvents: BodyView | null;
  /** Each stream event's arrival, ms since the request started, in the order of the events; null when not recorded. */
  streamEventOffsetsMs: number[] | null;
  /** This request's replays, oldest first. */
  replayIds: string[];
}

/** GET /requests/:id/body/:part */
export interface BodyTextResponse {
  text: string;
  truncated: boolean;
}
