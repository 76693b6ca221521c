import type { ErrorClass } from './errors.ts';
import type { FallbackHop } from './log.ts';
import type { GatewayKeyUse } from './keyPool.ts';
import type { ClientProtocol, ProtocolMode, TokenUsage } from './usage.ts';

/**
 * The lifecycle of one proxied request, published in-process as it happens. Subscribers (the log,
 * the window's live feed) must be cheap and must never throw into the forwarding path.
 */
export type RequestLifecycleEvent =
  | {
      type: 'start';
      requestId: string;
      startedAtMs: number;
      method: string;
      clientPath: string;
      upstreamPath: string;
      profileId: string | null;
      clientName: string | null;
      protocol: ClientProtocol;
      protocolMode: ProtocolMode;
      requestedModel: string | null;
      upstreamModel: string | null;
      stream: boolean;
      /** What Airlock changed on the way (fields a translation dropped, say). */
      notes: string[];
      /** The logged request this one resends (a replay); absent for a client's own request. */
      replayOf?: string;
    }
  /**
   * The request as Airlock read it (headers from the allowlist, body capped, not yet masked),
   * published once its body is in so the window shows an in-flight request's headers and body
   * before it ends. The log ignores it: the same parts come with `end`.
   */
  | {
      type: 'request';
      requestId: string;
      requestHeaders: Record<string, string>;
      /** The body as captured, read only when a window asks for the request (a copy per request otherwise). */
      readBody(): { body: Buffer | null; truncated: boolean };
    }
  | {
      type: 'headers';
      requestId: string;
      status: number;
      ttfbMs: number;
      upstreamRequestId: string | null;
      retries: number;
      /** Present when the request fell back: who answers, and the way there. */
      fallback?: RequestFallback;
    }
  | { type: 'delta'; requestId: string; text: string }
  | { type: 'usage'; requestId: string; usage: TokenUsage; responseModel: string | null }
  /**
   * A stream's estimated use so far (input from the body's size, output from the text received),
   * recorded in its in-flight row so a crash does not erase what the gateway charged for it.
   * Published at its first text and then at most once per STREAM_PROGRESS_INTERVAL_MS.
   */
  | { type: 'progress'; requestId: string; usage: TokenUsage; costCredits: number | null }
  | {
      type: 'end';
      requestId: string;
      status: number;
      durationMs: number;
      ttfbMs: number | null;
      retries: number;
      errorClass: ErrorClass | null;
      errorMessage: string | null;
      /** The failure's code where it says more than the class: the gateway's, or Airlock's own (`stream_ended_early`). */
      errorCode: string | null;
      responseModel: string | null;
      upstreamRequestId: string | null;
      /** A pooled profile's key for each attempt, in order; absent for a profile with one key. */
      gatewayKeys?: GatewayKeyUse[];
      usage: TokenUsage | null;
      /** 'estimated' when the upstream reported no usage and a tokenizer counted instead. */
      usageSource: 'reported' | 'estimated' | null;
      /** null when the model has no price ("unpriced"), never 0 for that. */
      costCredits: number | null;
      /** Present when the request fell back: who answered, and the way there (the last step's class included). */
      fallback?: RequestFallback;
      bodies: CapturedBodies;
      /** Added by the log's queue, never by forwarding: what the log did not keep of this request, and why. */
      logNotes?: string[];
    };

/** The profile and model that answered a request that fell back, and every step it took. */
export interface RequestFallback {
  profileId: string;
  upstreamModel: string | null;
  chain: FallbackHop[];
}

/** Bodies captured for the log, already capped; masking happens in the log before anything is written. */
export interface CapturedBodies {
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  requestBody: Buffer | null;
  requestBodyTruncated: boolean;
  responseBody: Buffer | null;
  responseBodyTruncated: boolean;
  /** For streams: the assembled assistant text. */
  streamText: string | null;
  /** For streams: each event's arrival in ms since the request started, in order (absent: none timed). */
  eventOffsetsMs?: Uint32Array | null;
}

/** A request's first event: what it is and where it goes. */
export type RequestStartEvent = Extract<RequestLifecycleEvent, { type: 'start' }>;
/** A request's last event: how it ended and what it cost. */
export type RequestEndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;
