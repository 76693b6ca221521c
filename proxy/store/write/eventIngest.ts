import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { EndedRowSummary, RequestLogRow } from '../../contracts/log.ts';
import type { CapturedBodies, RequestLifecycleEvent } from '../../contracts/lifecycle.ts';
import { sessionIdOfRequest } from './agentSession.ts';
import { exchangeSummary, parseBody } from './exchangeSummary.ts';
import { bodyTextsOf, buildBodiesRecord, type BodyTexts } from './bodyRecord.ts';
import { nextSliceLength, type SliceLimits } from './eventSlice.ts';
import { DEFAULT_INDEX_SLICE, FullTextBackfill } from './fullTextBackfill.ts';
import { rowFromRecord } from './rowCodec.ts';
import { applyRowEvent, maskRows, rowFromStart } from './rowDraft.ts';
import { RowRecorder, type SpendRecordStore } from './rowRecorder.ts';
import type { SpendEntry, UnwrittenState } from './unwrittenSpend.ts';
import { LogWriter, withBodiesNotKept, type LogBatch } from './writer.ts';

/** Quiet time before bodies are added to the full-text index in the background. */
export const DEFAULT_INDEX_IDLE_DELAY_MS = 500;
/** Unindexed body bytes that make indexing run even under load: a search scans at most this much unindexed text. */
export const DEFAULT_MAX_UNINDEXED_BYTES = 4 * 1024 * 1024;
/** Unindexed bytes that start a background pass before DEFAULT_MAX_IDLE_INDEX_WAIT_MS of quiet (FullTextBackfillOptions.minPassBytes). */
export const DEFAULT_MIN_INDEX_PASS_BYTES = 64 * 1024;
export const DEFAULT_MAX_IDLE_INDEX_WAIT_MS = 60_000;

/**
 * One transaction each. On the log thread nothing waits behind a slice but the next one, so a
 * slice is large: fewer commits per request. The byte limit bounds what a failed slice loses.
 */
export const INGEST_SLICE_LIMITS: SliceLimits = { maxEvents: 2_000, maxBodyBytes: 4 * 1024 * 1024 };

/**
 * A non-streaming request still running after this long gets its in-flight row (what a crash
 * marks interrupted). One that ends sooner is written once, at its end: writing the row in flight
 * and then completing it cost about a third of the log thread's work per request under load. A
 * kill loses such requests younger than this without a row, as it always lost the events not yet
 * posted. Streams run long and are what a crash interrupts: their row is written at once.
 */
export const IN_FLIGHT_ROW_DELAY_MS = 500;

/**
 * The row's agent session and one-line summary, from the request as it ended (masked with the row);
 * `texts`: its bodies as decoded for the record too (a binary body is a description, which parses to nothing).
 */
function summaryOf(bodies: CapturedBodies, texts: BodyTexts, row: RequestLogRow): Pick<RequestLogRow, 'agentSessionId' | 'summary'> {
  // Parsed once for both.
  const request = parseBody(texts.request);
  return {
    // A replay is the user's experiment on a turn, linked from that turn's detail: not a turn of the agent's session.
    agentSessionId:
      row.replayOf === null ? sessionIdOfRequest({ headers: bodies.requestHeaders, clientName: row.clientName, request }) : null,
    summary: exchangeSummary({ request, responseBody: row.stream ? null : texts.response, streamText: bodies.streamText }),
  };
}

export interface EventIngestOptions {
  bodyCapBytes: number;
  onError: (error: unknown) => void;
  /** Told each time bodies are turned off or on by a write (a full disk), with the reason. */
  onBodiesState: (reason: string | null) => void;
  inFlightRowDelayMs?: number;
  /** Where the spend of rows the database cannot take is saved; without one it is only reported. */
  spendRecord?: SpendRecordStore;
  /** Spend a previous run could not write (its saved record), to write as summary rows. */
  carriedSpend?: readonly SpendEntry[];
  /** Told whenever what is not written changes. */
  onUnwritten?: (state: UnwrittenState) => void;
}

/** Without a place to save to, the spend of unwritten rows is reported as not saved. */
const NO_SPEND_RECORD: SpendRecordStore = { save: () => 'no place to save it was given', clear: () => undefined, hasRoom: () => true };

/**
 * Turns lifecycle events into rows and bodies and writes them. Runs on the log thread, which owns
 * the rows of requests still in flight, so a later event completes its row without a read.
 */
export class EventIngest {
  private readonly writer: LogWriter;
  private readonly recorder: RowRecorder;
  private readonly fullText: FullTextBackfill;
  private readonly options: EventIngestOptions;
  private readonly drafts = new Map<string, RequestLogRow>();
  private readonly selectInFlightRow: StatementSync;
  /** Events not yet written per request: a row with more events still to come is written once, with the last. */
  private readonly pendingEventsByRequest = new Map<string, number>();
  /**
   * Requests in flight whose latest state is not written yet (younger than the in-flight row
   * delay), with when it is due on the monotonic clock: a wall clock set back would hold it as
   * long as the clock went back, and a crash meanwhile would leave no row for its spend.
   */
  private readonly heldInFlight = new Map<string, number>();
  private heldTimer: NodeJS.Timeout | null = null;
  private readonly inFlightRowDelayMs: number;
  /** The secrets of the latest batch, to mask rows written later by the held-row timer. */
  private latestSecrets: string[] = [];
  private reportedBodiesReason: string | null = null;

  constructor(db: DatabaseSync, options: EventIngestOptions) {
    this.options = options;
    this.inFlightRowDelayMs = options.inFlightRowDelayMs ?? IN_FLIGHT_ROW_DELAY_MS;
    this.selectInFlightRow = db.prepare("SELECT * FROM requests WHERE id = ? AND state = 'in_flight'");
    this.writer = new LogWriter(db);
    this.recorder = new RowRecorder(this.writer, {
      store: options.spendRecord ?? NO_SPEND_RECORD,
      carried: options.carriedSpend ?? [],
      onChange: options.onUnwritten ?? (() => undefined),
      onError: options.onError,
    });
    this.fullText = new FullTextBackfill(db, {
      idleDelayMs: DEFAULT_INDEX_IDLE_DELAY_MS,
      maxBacklogBytes: DEFAULT_MAX_UNINDEXED_BYTES,
      minPassBytes: DEFAULT_MIN_INDEX_PASS_BYTES,
      maxIdleWaitMs: DEFAULT_MAX_IDLE_INDEX_WAIT_MS,
      slice: DEFAULT_INDEX_SLICE,
      onError: options.onError,
    });
  }

  /**
   * Writes all of `events`, slice by slice (their bodies only `withBodies`); secrets are masked in
   * everything written. Returns the summaries of the requests that ended, as written: only the log
   * thread reads bodies for them, and the window's live rows show them without a reload.
   */
  ingest(events: RequestLifecycleEvent[], secrets: string[], withBodies: boolean): EndedRowSummary[] {
    const summaries: EndedRowSummary[] = [];
    if (events.length === 0) return summaries;
    this.latestSecrets = secrets;
    this.fullText.noteActivity();
    for (const event of events)
      this.pendingEventsByRequest.set(event.requestId, (this.pendingEventsByRequest.get(event.requestId) ?? 0) + 1);
    let offset = 0;
    while (offset < events.length) {
      const length = nextSliceLength(events, INGEST_SLICE_LIMITS, offset);
      this.writeSlice(events.slice(offset, offset + length), secrets, withBodies, summaries);
      offset += length;
    }
    this.recorder.publish();
    this.scheduleHeldRows();
    return summaries;
  }

  /**
   * Writes the in-flight rows still held back, whatever their age, and tries the rows the database
   * could not take again: a flush or close wants everything.
   */
  writeHeldRows(): void {
    this.writeHeld(Number.POSITIVE_INFINITY);
    this.recorder.retry();
  }

  /** Spend of requests the main thread folded while this thread was behind: written as summary rows. */
  addFoldedSpend(entries: readonly SpendEntry[]): void {
    this.recorder.addFolded(entries);
  }

  /** Tries the rows the database could not take again (retention may just have freed space). */
  retryUnwritten(): void {
    this.recorder.retry();
  }

  /** Turns body logging off (low disk) or back on, as the main thread's disk checks decide. */
  setBodiesDisabled(reason: string | null): void {
    if (reason === null) this.writer.enableBodies();
    else this.writer.disableBodies(reason);
    this.reportedBodiesReason = reason;
  }

  /** Re-reads the full-text backlog after retention deleted bodies. */
  recountBacklog(): void {
    this.fullText.recount();
  }

  close(): void {
    this.recorder.close();
    if (this.heldTimer !== null) clearTimeout(this.heldTimer);
    this.heldTimer = null;
    this.fullText.close();
  }

  /** Sets the timer for when the oldest held request reaches the in-flight row delay. */
  private scheduleHeldRows(): void {
    if (this.heldTimer !== null || this.heldInFlight.size === 0) return;
    const dueInMs = Math.max(0, Math.min(...this.heldInFlight.values()) - performance.now());
    this.heldTimer = setTimeout(() => {
      this.heldTimer = null;
      this.writeHeld(performance.now());
      this.scheduleHeldRows();
    }, dueInMs);
    this.heldTimer.unref();
  }

  /** Writes the held in-flight rows due by `dueByMs` on the monotonic clock. */
  private writeHeld(dueByMs: number): void {
    const rows: RequestLogRow[] = [];
    for (const [requestId, dueAtMs] of this.heldInFlight) {
      const draft = this.drafts.get(requestId);
      if (draft !== undefined && dueAtMs > dueByMs) continue;
      this.heldInFlight.delete(requestId);
      if (draft !== undefined) rows.push(draft);
    }
    if (rows.length === 0) return;
    try {
      this.recorder.write({ rows: maskRows(rows, this.latestSecrets), bodies: [] });
      this.recorder.publish();
      this.reportBodiesState();
    } catch (error) {
      this.options.onError(error);
    }
  }

  private writeSlice(events: RequestLifecycleEvent[], secrets: string[], withBodies: boolean, summaries: EndedRowSummary[]): void {
    for (const event of events) this.noteWritten(event.requestId);
    try {
      const batch = this.batchFrom(events, secrets, withBodies);
      // Known whether or not the database takes the rows (a full disk keeps them in memory).
      for (const row of batch.rows)
        if (row.state !== 'in_flight' && row.summary !== null) summaries.push({ requestId: row.id, summary: row.summary });
      const outcome = this.recorder.write(batch);
      this.reportBodiesState();
      // Only text stored for the first time waits for the index: a request body's known pieces are indexed already.
      if (outcome === 'written' && batch.bodies.length > 0) this.fullText.noteWritten(this.writer.lastStoredBodyBytes);
    } catch (error) {
      this.options.onError(error);
    }
  }

  private reportBodiesState(): void {
    const reason = this.writer.bodiesDisabledReason;
    if (reason === this.reportedBodiesReason) return;
    this.reportedBodiesReason = reason;
    this.options.onBodiesState(reason);
  }

  private batchFrom(events: RequestLifecycleEvent[], secrets: string[], withBodies: boolean): LogBatch {
    const touched = new Map<string, RequestLogRow>();
    const bodies: LogBatch['bodies'] = [];
    for (const event of events) {
      // The live view's own events: the log has the text and the request whole with `end`.
      if (event.type === 'delta' || event.type === 'request') continue;
      if (event.type === 'start') {
        const row = rowFromStart(event);
        this.drafts.set(row.id, row);
        touched.set(row.id, row);
        continue;
      }
      const draft = this.drafts.get(event.requestId) ?? this.writtenInFlightRow(event.requestId);
      // A request that started before the log attached has no row to complete.
      if (draft === undefined) continue;
      const row = applyRowEvent(draft, event);
      if (event.type === 'end') {
        const texts = bodyTextsOf(event.bodies);
        // `row` is applyRowEvent's new object, not yet shared: completed in place rather than copied again.
        Object.assign(row, summaryOf(event.bodies, texts, draft));
        this.drafts.delete(row.id);
        const disabledReason = withBodies ? this.writer.bodiesDisabledReason : null;
        if (disabledReason !== null) row.notes = withBodiesNotKept(row, disabledReason).notes;
        else if (withBodies) {
          bodies.push({
            requestId: row.id,
            record: buildBodiesRecord(event.bodies, row.stream, this.options.bodyCapBytes, secrets, texts),
          });
        }
      } else {
        this.drafts.set(row.id, row);
      }
      touched.set(row.id, row);
    }
    return { rows: maskRows(this.rowsToWrite(touched.values()), secrets), bodies };
  }

  /**
   * The touched rows to write now. An in-flight row with events still to write is left to a later
   * slice, and a non-streaming one younger than the in-flight row delay is held: most requests
   * take one write.
   */
  private rowsToWrite(touched: Iterable<RequestLogRow>): RequestLogRow[] {
    const nowMs = Date.now();
    const monotonicNowMs = performance.now();
    const rows: RequestLogRow[] = [];
    for (const row of touched) {
      if (row.state === 'in_flight') {
        if (this.pendingEventsByRequest.has(row.id)) continue;
        if (!row.stream && this.stillHeld(row, nowMs, monotonicNowMs)) continue;
      }
      this.heldInFlight.delete(row.id);
      rows.push(row);
    }
    return rows;
  }

  /** Holds a non-streaming row until the delay has passed since its start (its wall-clock age when first seen). */
  private stillHeld(row: RequestLogRow, nowMs: number, monotonicNowMs: number): boolean {
    const dueAtMs = this.heldInFlight.get(row.id) ?? monotonicNowMs + this.inFlightRowDelayMs - Math.max(0, nowMs - row.startedAtMs);
    if (dueAtMs <= monotonicNowMs) return false;
    this.heldInFlight.set(row.id, dueAtMs);
    return true;
  }

  /**
   * The row as written while in flight, for a request whose start an earlier log thread handled
   * (one that died and was replaced): its later events still complete the row.
   */
  private writtenInFlightRow(requestId: string): RequestLogRow | undefined {
    const record = this.selectInFlightRow.get(requestId);
    return record === undefined ? undefined : rowFromRecord(record);
  }

  private noteWritten(requestId: string): void {
    const pending = (this.pendingEventsByRequest.get(requestId) ?? 1) - 1;
    if (pending > 0) this.pendingEventsByRequest.set(requestId, pending);
    else this.pendingEventsByRequest.delete(requestId);
  }
}
