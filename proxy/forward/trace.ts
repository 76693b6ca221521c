import type { GatewayKeyUse } from '../contracts/keyPool.ts';
import type { ErrorClass } from '../contracts/errors.ts';
import type { TokenUsage } from '../contracts/usage.ts';
import type { RequestFallback, RequestLifecycleEvent } from '../contracts/lifecycle.ts';
import type { FallbackHop } from '../contracts/log.ts';
import type { RequestEvents } from '../contracts/requestEvents.ts';
import type { ArrivingBody } from './arrivingBody.ts';
import { BodyCapture, type CapturedBody, type CaptureKeyMasker } from './capture.ts';
import { RequestBodyRecord } from './requestBodyRecord.ts';
import { flattenHeaders } from './headers.ts';
import { EventOffsetRecorder } from '../core/eventOffsets.ts';
import { newRequestId } from '../core/requestId.ts';
import { progressTick, streamStartsEstimating, streamStopsEstimating, type ProgressEstimate } from './progressTick.ts';
import type { TraceAccounting, TraceStart } from './traceShapes.ts';
import { RequestAttempts } from './requestAttempts.ts';
import { withLeftSpend } from './fallbackChain.ts';
import { WrittenOutput } from './writtenOutput.ts';
import type { OutputTally } from './outputTally.ts';

const NOTHING_CAPTURED: CapturedBody = { truncated: false, pastLogLimit: false, toBuffer: () => null };

/**
 * One request's observable state. It publishes lifecycle events and collects what the log keeps;
 * it never touches the response itself.
 */
export class RequestTrace {
  readonly startedAtMs = Date.now();
  readonly requestId = newRequestId(this.startedAtMs);
  private readonly startedAtHr = performance.now();
  private readonly events: RequestEvents;
  /** Made at the first byte: a request without a body, or refused before its answer, needs none. */
  #requestBody: RequestBodyRecord | null = null;
  #responseBody: BodyCapture | null = null;
  /** Made at a stream's first event. */
  #eventOffsets: EventOffsetRecorder | null = null;
  /** What a stream's model wrote, made at its first piece: an answer that did not stream has none. */
  #written: WrittenOutput | null = null;
  #wholeAnswerWritten: OutputTally | null = null;
  private progressEstimate: ProgressEstimate | null = null;
  private progressTickRecorded = -1;
  private readonly captureLimitBytes: number;
  #answerCaptureBytes: number; // what is kept of the answer: the log's limit, or more for a keyed creation's repeat
  #requestHeaders: Record<string, string> = {};
  #responseHeaders: Record<string, string> | null = {};
  /** The headers a success's client got, flattened for the log only when something reads them. */
  #sentHeaders: Record<string, string | string[]> | null = null;
  #ttfbMs: number | null = null;
  #status = 0;
  /** The gateway's own status, when it answered: the client may be answered another (a final answer to Codex is a 400). */
  #gatewayStatus: number | null = null;
  #errorClass: ErrorClass | null = null;
  #errorMessage: string | null = null;
  #errorCode: string | null = null;
  #responseModel: string | null = null;
  /** Every attempt's gateway request id, in order: support may ask for any of them. */
  readonly #upstreamRequestIds: string[] = [];
  /** A pooled profile's key per attempt, in order (id and label, never the key). */
  readonly #gatewayKeys: GatewayKeyUse[] = [];
  #usage: TokenUsage | null = null;
  #billedCalls = 1;
  /** How many attempts went out, by fallback step, whether each may have run at the gateway, and those it may bill with no usage stated. */
  readonly attempts = new RequestAttempts();
  #upstreamAnswerComplete = false;
  #successFailure: 'declared' | 'brokeOff' | null = null;
  #started = false;
  private hasEnded = false;
  #laterNotes: string[] | null = null; // changes made after the row began (a resend without what the gateway refused)

  constructor(events: RequestEvents, captureLimitBytes: number) {
    this.events = events;
    this.captureLimitBytes = captureLimitBytes;
    this.#answerCaptureBytes = captureLimitBytes;
  }

  /** A keyed creation's answer is kept whole for its repeat up to `bytes`, past the log's limit; called before it comes. */
  keepsWholeAnswerUpTo(bytes: number): void {
    this.#answerCaptureBytes = Math.max(this.captureLimitBytes, bytes);
  }

  get requestHeaders(): Record<string, string> {
    return this.#requestHeaders;
  }
  get responseHeaders(): Record<string, string> {
    this.#responseHeaders ??= flattenHeaders(this.#sentHeaders ?? {});
    return this.#responseHeaders;
  }
  get ttfbMs(): number | null {
    return this.#ttfbMs;
  }
  get retries(): number {
    return this.attempts.retries;
  }
  /** Retries of the current fallback step (all of them when the request did not fall back), resends beyond the policy left out. */
  get stepRetries(): number {
    return this.attempts.stepRetries;
  }
  get status(): number {
    return this.#status;
  }
  get gatewayStatus(): number | null {
    return this.#gatewayStatus;
  }
  get errorClass(): ErrorClass | null {
    return this.#errorClass;
  }
  get errorMessage(): string | null {
    return this.#errorMessage;
  }
  get responseModel(): string | null {
    return this.#responseModel;
  }
  get usage(): TokenUsage | null {
    return this.#usage;
  }
  /** Some attempt may have run at the gateway (upstreamExecution.ts decides): it is never given up, nor its key's repeat resent. */
  get upstreamMayHaveRun(): boolean {
    return this.attempts.mayHaveRun;
  }
  /** The gateway's whole answer arrived (a success read to its end, or an error status with its body). */
  get upstreamAnswerComplete(): boolean {
    return this.#upstreamAnswerComplete;
  }
  get started(): boolean {
    return this.#started;
  }
  /** The ids every attempt got, joined: the log keeps them all in its one column. */
  get upstreamRequestId(): string | null {
    const ids = this.#upstreamRequestIds;
    return ids.length < 2 ? (ids[0] ?? null) : ids.join(', ');
  }

  elapsedMs(): number {
    return performance.now() - this.startedAtHr;
  }

  begin(details: TraceStart): void {
    this.#started = true;
    this.events.emit({ type: 'start', requestId: this.requestId, startedAtMs: this.startedAtMs, ...details });
  }

  /** The request is read: kept for the log (cut with the key masked), and published for the window while it runs (`request`). */
  requestReceived(headers: Record<string, string>, chunks: readonly Buffer[], keyMasker: CaptureKeyMasker): void {
    this.#requestHeaders = headers;
    if (chunks.length > 0) this.#requestBody ??= new RequestBodyRecord(this.captureLimitBytes, keyMasker);
    for (const chunk of chunks) this.#requestBody?.add(chunk);
    if (!this.#started || !this.events.hasListeners) return;
    this.events.emit({
      type: 'request',
      requestId: this.requestId,
      requestHeaders: headers,
      readBody: () => ({ body: this.#requestBody?.toBuffer() ?? null, truncated: this.#requestBody?.truncated ?? false }),
    });
  }

  /** The body read so far goes on arriving while it is sent (arrivingBody.ts): the log's copy follows it. */
  requestBodyArriving(arriving: ArrivingBody): void {
    this.#requestBody?.follow(arriving);
  }

  /** The next attempt goes out with this key of the profile's pool. */
  keyUsed(keyId: string, label: string): void {
    this.#gatewayKeys.push({ keyId, label });
  }

  /** One attempt got an answer from the gateway (any status): its id is kept whatever comes next. */
  attemptAnswered(upstreamRequestId: string | null): void {
    if (upstreamRequestId !== null) this.#upstreamRequestIds.push(upstreamRequestId);
  }

  /** Whether the current attempt may have run at the gateway so far (a socket reached; an answer's 4xx says not): RequestAttempts. */
  attemptMayHaveRun(mayHaveRun: boolean): void {
    this.attempts.judged(mayHaveRun);
  }

  /** The current attempt is over and a further one is about to be sent. */
  retried(): void {
    this.attempts.retried();
  }

  /**
   * Resent on the pool's next key, changed after a refusal, or on a new connection after the gateway
   * closed a kept-alive one unread (upstreamExecution.ts closedWhileIdle): in the row, not one of the profile's retries.
   */
  resentBeyondPolicy(): void {
    this.attempts.resentBeyondPolicy();
  }

  /** What became of a change made after the row began (a resend without what the gateway refused), for the row's end. */
  notedLater(note: string): void {
    this.#laterNotes = [...(this.#laterNotes ?? []), note];
  }

  /** The step tried (`failed`: its profile, model, outcome) is over; `skipped` steps were not sent (a budget, a missing
   *  profile). `next` is tried now; without one, the failed step's answer goes to the client, the chain shows the skipped. */
  fellBack(failed: FallbackHop, skipped: readonly FallbackHop[], next: Pick<FallbackHop, 'profileId' | 'model'> | null): void {
    this.attempts.fellBack(failed, skipped, next);
  }

  /** Who answers and the way there, once the request fell back (or skipped a fallback); undefined otherwise. */
  get fallback(): RequestFallback | undefined {
    return this.attempts.fallback(this.#status, this.#errorClass);
  }

  /** The answer the client gets starts with the gateway's status (headers as Airlock passes them, key masked). */
  answered(status: number, responseHeaders: Record<string, string>): void {
    this.#status = status;
    this.#gatewayStatus = status;
    this.#ttfbMs = this.elapsedMs();
    this.#responseHeaders = responseHeaders;
    this.#sentHeaders = null;
    const upstreamRequestId = this.#upstreamRequestIds.at(-1) ?? null;
    const event: Extract<RequestLifecycleEvent, { type: 'headers' }> = {
      type: 'headers',
      requestId: this.requestId,
      status,
      ttfbMs: this.#ttfbMs,
      upstreamRequestId,
      retries: this.attempts.retries,
    };
    // Set only when there is one (no spread of a fresh object per request).
    const fallback = this.fallback;
    if (fallback !== undefined) event.fallback = fallback;
    this.events.emit(event);
  }

  /** The start of the gateway's answer as the log keeps it (read-only: it changes through the transitions below). */
  get responseBody(): CapturedBody {
    return this.#responseBody ?? NOTHING_CAPTURED;
  }

  /** Bytes of the gateway's answer (or of its error, key masked) arrived; the log's copy is cut with the key masked. */
  answerBytes(chunk: Buffer, keyMasker: CaptureKeyMasker): void {
    this.#responseBody ??= new BodyCapture(this.#answerCaptureBytes, keyMasker, this.captureLimitBytes);
    this.#responseBody.add(chunk);
  }

  /** `count` events of the streamed answer arrived now (one upstream read), for their offsets in the log. */
  streamEventsArrived(count: number): void {
    this.#eventOffsets ??= new EventOffsetRecorder();
    this.#eventOffsets.arrived(count, this.elapsedMs());
  }

  /** The answer's captured bytes held the key: the log keeps them as `text`, masked as the client saw them. */
  answerBytesMasked(text: string): void {
    this.#responseBody ??= new BodyCapture(this.#answerCaptureBytes, null, this.captureLimitBytes);
    this.#responseBody.replaceText(text);
  }

  /** The headers the client got for a success, once the relay has built them (key masked). */
  responseHeadersSent(headers: Record<string, string | string[]>): void {
    this.#sentHeaders = headers;
    this.#responseHeaders = null;
  }

  /** The gateway's whole answer arrived. */
  answerComplete(): void {
    this.#upstreamAnswerComplete = true;
  }

  modelAnswered(model: string): void {
    this.#responseModel = model;
  }

  delta(text: string): void {
    this.#streamOutput().text(text);
    if (this.events.hasListeners) this.events.emit({ type: 'delta', requestId: this.requestId, text });
    if (this.progressEstimate !== null && this.progressTickRecorded !== progressTick()) this.recordProgress(this.progressEstimate);
  }

  /** Streams publish `progress` with this estimate from their first text on (see STREAM_PROGRESS_INTERVAL_MS). */
  estimateProgressWith(estimate: ProgressEstimate): void {
    if (this.progressEstimate === null && !this.hasEnded) streamStartsEstimating();
    this.progressEstimate = estimate;
  }

  private recordProgress(estimate: ProgressEstimate): void {
    this.progressTickRecorded = progressTick();
    this.estimated(estimate(this.#streamOutput().answerTextBytes()));
  }

  /** The request's use so far as estimated, for its in-flight row: what a crash leaves counted. */
  estimated(estimate: ReturnType<ProgressEstimate>): void {
    this.events.emit({ type: 'progress', requestId: this.requestId, ...estimate });
  }

  /** What a per-call price is billed for: the request, or each image it made (relays bill `n` images). */
  get billedCalls(): number {
    return this.#billedCalls;
  }
  callsAnswered(count: number): void {
    this.#billedCalls = count;
  }

  setUsage(usage: TokenUsage): void {
    this.#usage = usage;
    this.events.emit({ type: 'usage', requestId: this.requestId, usage, responseModel: this.#responseModel });
  }

  /** The failure is an error the gateway declared in a 200 (protocols/declaredError.ts): billed only as reported, opens no breaker. */
  gatewayDeclaredFailure(): void {
    this.#successFailure = 'declared';
  }
  /** A success broke off before its client got a byte, which was answered an error: the model ran, so it is billed all the same. */
  answerBrokeOff(): void {
    this.#successFailure = 'brokeOff';
  }
  get successFailure(): 'declared' | 'brokeOff' | null {
    return this.#successFailure;
  }

  /**
   * The request failed with this class; `status`, when given, is what its client is answered (or 499
   * for a client gone); `errorCode`, the code its client's error carries where it says more than the class.
   */
  failed(errorClass: ErrorClass, message: string, status?: number, errorCode?: string): void {
    this.#errorClass = errorClass;
    this.#errorMessage = message;
    this.#errorCode = errorCode ?? null;
    if (status !== undefined) this.#status = status;
  }

  /** Made at a stream's first piece: its observer reports the answer's text through `delta`, the rest through the transitions below. */
  #streamOutput(): WrittenOutput {
    this.#written ??= new WrittenOutput(this.captureLimitBytes);
    return this.#written;
  }
  /** The stream's model wrote this besides its answer's text (reasoning, a refusal, a tool call): only a usage estimate reads it. */
  otherOutput(text: string): void {
    this.#streamOutput().other(text);
  }
  /** The stream's model wrote output with no text to count, of this size (redacted thinking's decoded bytes). */
  opaqueOutput(bytes: number): void {
    this.#streamOutput().opaque(bytes);
  }
  /** A piece of a stream's thinking block, by the block's index. */
  thinkingOutput(blockIndex: number, text: string): void {
    this.#streamOutput().thinking(blockIndex, text);
  }
  /** The decoded bytes of a stream's thinking block's signature so far, by the block's index. */
  thinkingSignature(blockIndex: number, signatureBytes: number): void {
    this.#streamOutput().thinkingSignature(blockIndex, signatureBytes);
  }
  streamText(): string | null {
    return this.#written?.answerText() ?? null;
  }
  /** What a whole answer without usage holds that its model wrote, read where it was parsed (relay.ts). */
  wholeAnswerWrote(tally: OutputTally): void {
    this.#wholeAnswerWritten = tally;
  }
  /** All the model wrote, for a usage estimate: its stream's, else its whole answer's; null when neither was read. */
  get outputWritten(): OutputTally | null {
    return this.#written?.tally ?? this.#wholeAnswerWritten;
  }

  /** Publishes the end once; later calls (a close after an error) are ignored. */
  ended(status: number, accounting: TraceAccounting): void {
    if (this.hasEnded) return;
    this.hasEnded = true;
    if (this.progressEstimate !== null) streamStopsEstimating();
    this.#status = status;
    const uploadNote = this.#requestBody?.close() ?? null;
    const logged = this.#responseBody?.forLog();
    const event: Extract<RequestLifecycleEvent, { type: 'end' }> = {
      type: 'end',
      requestId: this.requestId,
      status,
      durationMs: this.elapsedMs(),
      ttfbMs: this.#ttfbMs,
      retries: this.attempts.retries,
      errorClass: this.#errorClass,
      errorMessage: this.#errorMessage,
      errorCode: this.#errorCode,
      responseModel: this.#responseModel,
      upstreamRequestId: this.upstreamRequestId,
      usage: accounting.usage,
      usageSource: accounting.usageSource,
      costCredits: accounting.costCredits,
      bodies: {
        requestHeaders: this.#requestHeaders,
        responseHeaders: this.responseHeaders,
        requestBody: this.#requestBody?.toBuffer() ?? null,
        requestBodyTruncated: this.#requestBody?.truncated ?? false,
        responseBody: logged?.body ?? null,
        responseBodyTruncated: logged?.truncated ?? false,
        streamText: this.streamText(),
        eventOffsetsMs: this.#eventOffsets?.offsets() ?? null,
      },
    };
    // The optional fields are set only when there are some (no spread of a fresh object per request).
    if (this.#gatewayKeys.length > 0) event.gatewayKeys = this.#gatewayKeys;
    let notes = accounting.note === undefined ? this.#laterNotes : [...(this.#laterNotes ?? []), accounting.note];
    if (uploadNote !== null) notes = [...(notes ?? []), uploadNote];
    if (notes !== null) event.logNotes = notes;
    const fallback = this.fallback;
    if (fallback !== undefined) event.fallback = accounting.leftSpend ? withLeftSpend(fallback, accounting.leftSpend) : fallback;
    this.events.emit(event);
  }
}
