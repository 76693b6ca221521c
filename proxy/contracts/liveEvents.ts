import type { RequestSummary } from './requests.ts';
import type { StatusResponse } from './status.ts';

/** The control API's live channel (GET /events, text/event-stream), coalesced per frame. */

/** A request's changes since the previous frame: fields replaced, stream text appended. */
export interface LiveRequestUpdate {
  requestId: string;
  fields: Partial<RequestSummary>;
  appendText: string;
}

/** SSE `event: frame`. The first frame after connecting lists every request in flight in full. */
export interface LiveFrame {
  requests: LiveRequestUpdate[];
  /** Present when the status changed (pause, profile switch, spend, alarms). */
  status: StatusResponse | null;
}

export const LIVE_EVENT_NAME = 'frame';

/**
 * The tail of a stream's text a window's row shows (the detail view reads the rest from the log):
 * the window keeps no more, so the feed never sends more of one request at a time.
 */
export const LIVE_TEXT_LIMIT_CHARS = 32_000;

/**
 * A request's summary before anything but its start is known. The proxy fills a start event's
 * fields over it; the window uses it for a row whose first update it missed.
 */
export const IN_FLIGHT_SUMMARY_DEFAULTS: Omit<RequestSummary, 'id' | 'startedAtMs'> = {
  state: 'in_flight',
  clientName: null,
  profileId: null,
  method: 'POST',
  clientPath: '',
  requestedModel: null,
  responseModel: null,
  stream: false,
  status: null,
  errorClass: null,
  ttfbMs: null,
  durationMs: null,
  inputTokens: null,
  outputTokens: null,
  costCredits: null,
  usageEstimated: false,
  agentSessionId: null,
  summary: null,
  replayOf: null,
};
