import type { ErrorClass } from '../contracts/errors.ts';
import type { TokenUsage } from '../contracts/usage.ts';
import type { RequestLifecycleEvent } from '../contracts/lifecycle.ts';
import type { RequestEvents } from '../contracts/requestEvents.ts';
import { BodyCapture } from './capture.ts';
import { newRequestId } from './requestId.ts';

/** What a request's `start` event says beyond the ids the trace assigns itself. */
export type TraceStart = Omit<Extract<RequestLifecycleEvent, { type: 'start' }>, 'type' | 'requestId' | 'startedAtMs'>;

export interface TraceAccounting {
  usage: TokenUsage | null;
  usageSource: 'reported' | 'estimated' | null;
  costCredits: number | null;
}

/** A stream's estimated usage and cost for the UTF-8 bytes of text it has received so far. */
export type ProgressEstimate = (outputBytes: number) => { usage: TokenUsage; costCredits: number | null };

/** How often a stream's in-flight row gets its estimate: what a crash can lose of its spend. */
export const STREAM_PROGRESS_INTERVAL_MS = 1_000;

/**
 * A tick every STREAM_PROGRESS_INTERVAL_MS from one unref'd timer, so a delta compares two integers
 * to know whether its stream's estimate is due, instead of reading the clock. It runs only while
 * a stream with an estimate is open: an idle proxy (or a stopped one) wakes nothing.
 */
let progressTick = 0;
let progressTimer: NodeJS.Timeout | null = null;
let streamsEstimating = 0;

function streamStartsEstimating(): void {
  streamsEstimating += 1;
  if (progressTimer !== null) return;
  progressTimer = setInterval(() => {
    progressTick += 1;
  }, STREAM_PROGRESS_INTERVAL_MS);
  progressTimer.unref();
}

function streamStopsEstimating(): void {
  streamsEstimating -= 1;
  if (streamsEstimating > 0 || progressTimer === null) return;
  clearInterval(progressTimer);
  progressTimer = null;
}

/**
 * One request's observable state. It publishes lifecycle events and collects what the log keeps;
 * it never touches the response itself.
 */
export class RequestTrace {
  readonly startedAtMs = Date.now();
  readonly requestId = newRequestId(this.startedAtMs);
  private readonly startedAtHr = performance.now();
  private readonly events: RequestEvents;
  readonly requestBody: BodyCapture;
  readonly responseBody: BodyCapture;
  #requestHeaders: Record<string, string> = {};
  responseHeaders: Record<string, string> = {};
  private streamTextParts: string[] | null = null;
  private streamTextBytes = 0;
  /** UTF-16 units of all text received (the parts kept stop at the capture limit). */
  private streamedChars = 0;
  private progressEstimate: ProgressEstimate | null = null;
  private progressTickRecorded = -1;
  /** The parts already measured in UTF-8 bytes, for the bytes-per-character ratio. */
  private measuredParts = 0;
  private measuredChars = 0;
  private measuredBytes = 0;
  private readonly captureLimitBytes: number;
  ttfbMs: number | null = null;
  retries = 0;
  status = 0;
  errorClass: ErrorClass | null = null;
  errorMessage: string | null = null;
  responseModel: string | null = null;
  upstreamRequestId: string | null = null;
  usage: TokenUsage | null = null;
  /** Some attempt may have run at the gateway (upstreamExecution.ts decides): it is never given up, nor its key's repeat resent. */
  upstreamMayHaveRun = false;
  /** The gateway's whole answer arrived (a success read to its end, or an error status with its body). */
  upstreamAnswerComplete = false;
  started = false;
  private ended = false;

  constructor(events: RequestEvents, captureLimitBytes: number) {
    this.events = events;
    this.captureLimitBytes = captureLimitBytes;
    this.requestBody = new BodyCapture(captureLimitBytes);
    this.responseBody = new BodyCapture(captureLimitBytes);
  }

  elapsedMs(): number {
    return performance.now() - this.startedAtHr;
  }

  get requestHeaders(): Record<string, string> {
    return this.#requestHeaders;
  }

  /** Set once the request is read, after its body: then the request is published for the window (`request`). */
  set requestHeaders(headers: Record<string, string>) {
    this.#requestHeaders = headers;
    if (!this.started || !this.events.hasListeners) return;
    this.events.emit({
      type: 'request',
      requestId: this.requestId,
      requestHeaders: headers,
      requestBody: this.requestBody.toBuffer(),
      requestBodyTruncated: this.requestBody.truncated,
    });
  }

  start(details: TraceStart): void {
    this.started = true;
    this.events.emit({ type: 'start', requestId: this.requestId, startedAtMs: this.startedAtMs, ...details });
  }

  headers(status: number, upstreamRequestId: string | null): void {
    this.status = status;
    this.ttfbMs = this.elapsedMs();
    this.upstreamRequestId = upstreamRequestId;
    this.events.emit({ type: 'headers', requestId: this.requestId, status, ttfbMs: this.ttfbMs, upstreamRequestId, retries: this.retries });
  }

  delta(text: string): void {
    if (this.streamTextParts === null) this.streamTextParts = [];
    if (this.streamTextBytes < this.captureLimitBytes) {
      this.streamTextParts.push(text);
      this.streamTextBytes += text.length;
    }
    this.streamedChars += text.length;
    if (this.events.hasListeners) this.events.emit({ type: 'delta', requestId: this.requestId, text });
    if (this.progressEstimate !== null && this.progressTickRecorded !== progressTick) this.recordProgress(this.progressEstimate);
  }

  /** Streams publish `progress` with this estimate from their first text on (see STREAM_PROGRESS_INTERVAL_MS). */
  estimateProgressWith(estimate: ProgressEstimate): void {
    if (this.progressEstimate === null && !this.ended) streamStartsEstimating();
    this.progressEstimate = estimate;
  }

  private recordProgress(estimate: ProgressEstimate): void {
    this.progressTickRecorded = progressTick;
    const parts = this.streamTextParts ?? [];
    for (; this.measuredParts < parts.length; this.measuredParts += 1) {
      const part = parts[this.measuredParts] ?? '';
      this.measuredChars += part.length;
      this.measuredBytes += Buffer.byteLength(part);
    }
    const bytesPerChar = this.measuredChars > 0 ? this.measuredBytes / this.measuredChars : 1;
    const { usage, costCredits } = estimate(Math.round(this.streamedChars * bytesPerChar));
    this.events.emit({ type: 'progress', requestId: this.requestId, usage, costCredits });
  }

  setUsage(usage: TokenUsage): void {
    this.usage = usage;
    this.events.emit({ type: 'usage', requestId: this.requestId, usage, responseModel: this.responseModel });
  }

  fail(errorClass: ErrorClass, message: string): void {
    this.errorClass = errorClass;
    this.errorMessage = message;
  }

  streamText(): string | null {
    return this.streamTextParts === null ? null : this.streamTextParts.join('');
  }

  /** Publishes the end once; later calls (a close after an error) are ignored. */
  end(status: number, accounting: TraceAccounting): void {
    if (this.ended) return;
    this.ended = true;
    if (this.progressEstimate !== null) streamStopsEstimating();
    this.status = status;
    this.events.emit({
      type: 'end',
      requestId: this.requestId,
      status,
      durationMs: this.elapsedMs(),
      ttfbMs: this.ttfbMs,
      retries: this.retries,
      errorClass: this.errorClass,
      errorMessage: this.errorMessage,
      responseModel: this.responseModel,
      upstreamRequestId: this.upstreamRequestId,
      usage: accounting.usage,
      usageSource: accounting.usageSource,
      costCredits: accounting.costCredits,
      bodies: {
        requestHeaders: this.requestHeaders,
        responseHeaders: this.responseHeaders,
        requestBody: this.requestBody.toBuffer(),
        requestBodyTruncated: this.requestBody.truncated,
        responseBody: this.responseBody.toBuffer(),
        responseBodyTruncated: this.responseBody.truncated,
        streamText: this.streamText(),
      },
    });
  }
}
