import type { RequestSummary, StatusResponse } from './api.ts';

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
