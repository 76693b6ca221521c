import { LIVE_FRAME_INTERVAL_MS } from '../../contracts/controlApi.ts';
import type { LiveFrame, LiveRequestUpdate } from '../../contracts/liveEvents.ts';
import type { RequestSummary } from '../../contracts/requests.ts';
import type { StatusResponse } from '../../contracts/status.ts';
import { redactSecrets } from '../../core/redact.ts';
import type { RequestEndEvent, RequestLifecycleEvent } from '../../contracts/lifecycle.ts';
import type { EndedRowSummary } from '../../contracts/log.ts';
import type { RequestEvents } from '../../contracts/requestEvents.ts';
import { capturedBodyText } from '../../store/write/bodyRecord.ts';
import { agentSessionIdOf } from '../../core/agentSessionHeader.ts';
import { maskedText, mergeUpdate, textTail, updateFromEvent } from './liveUpdates.ts';

export interface LiveHubOptions {
  /** Builds the status pushed with a frame after something that changes it. */
  status: () => StatusResponse;
  frameIntervalMs?: number;
  /**
   * The secrets masked in text a window is sent: paths and model names come from clients, model
   * names and streamed text from the gateway, and either may hold a key. Read once per frame (each
   * read builds a new list) and applied per frame, so a window costs it, not the request path.
   */
  knownSecrets?: () => string[];
}

type FrameSink = (frame: LiveFrame) => void;

interface InFlight {
  fields: Partial<RequestSummary>;
  text: string;
}

/** An in-flight request as the trace read it, kept until it ends (the log has it after that). */
interface RequestAsRead {
  headers: Record<string, string>;
  readBody(): { body: Buffer | null; truncated: boolean };
}

/** An in-flight request's headers and body, masked, for the detail view. */
export interface InFlightRequest {
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  requestTruncated: boolean;
}

/**
 * The window's live feed. Lifecycle events are merged per request and sent at most once per
 * frame interval, so twenty fast streams cost each window ten frames a second, not thousands of
 * messages. It also remembers which profiles' keys the gateway just rejected (for the alarm).
 */
export class LiveHub {
  readonly #options: Required<LiveHubOptions>;
  readonly #sinks = new Set<FrameSink>();
  readonly #inFlight = new Map<string, InFlight>();
  readonly #profileOf = new Map<string, string | null>();
  readonly #requests = new Map<string, RequestAsRead>();
  readonly #keyRejected = new Set<string>();
  readonly #quotaExhausted = new Set<string>();
  #pending = new Map<string, LiveRequestUpdate>();
  #statusDirty = false;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(options: LiveHubOptions) {
    this.#options = {
      frameIntervalMs: LIVE_FRAME_INTERVAL_MS,
      ...options,
      knownSecrets: options.knownSecrets ?? (() => []),
    };
  }

  /** Follows a proxy's events; returns the unsubscribe function. */
  attach(events: RequestEvents): () => void {
    return events.subscribe((event) => this.#onEvent(event));
  }

  /** Adds a window; it first gets one frame with every request in flight, in full. */
  addClient(sink: FrameSink): () => void {
    const mask = this.#frameMask();
    const requests: LiveRequestUpdate[] = [...this.#inFlight].map(([requestId, entry]) => {
      const fields: Partial<RequestSummary> = { ...entry.fields };
      // Read here, not as each request arrives: with no window open the hub does nothing per request for it.
      const read = this.#requests.get(requestId);
      if (read) fields.agentSessionId = agentSessionIdOf(read.headers);
      return maskedUpdate({ requestId, fields, appendText: entry.text }, mask);
    });
    sink({ requests, status: this.#options.status() });
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  /** The log read these ended requests' summaries: their rows show them without a reload. */
  summariesWritten(summaries: readonly EndedRowSummary[]): void {
    if (this.#sinks.size === 0) return;
    for (const { requestId, summary } of summaries) mergeUpdate(this.#pending, { requestId, fields: { summary }, appendText: '' });
    this.#schedule();
  }

  /** Something outside the request path changed the status (pause, profile switch). */
  statusChanged(): void {
    this.#statusDirty = true;
    this.#schedule();
  }

  /** The headers and body of a request still in flight, masked; null once it ended or when never seen. */
  /** Masked when asked for, not as each request arrives: most requests are never opened in flight. */
  inFlightRequest(requestId: string): InFlightRequest | null {
    const read = this.#requests.get(requestId);
    if (!read) return null;
    const mask = this.#frameMask();
    const { body, truncated } = read.readBody();
    // As the log will store it: an upload is described, not read as text (nor replayed as such).
    const text = capturedBodyText(body, read.headers, truncated);
    return {
      requestHeaders: Object.fromEntries(Object.entries(read.headers).map(([name, value]) => [name, mask(value)])),
      requestBody: text === null ? null : mask(text),
      requestTruncated: truncated,
    };
  }

  /** Profiles whose key the gateway rejected on their latest answer. */
  keyRejectedProfiles(): string[] {
    return [...this.#keyRejected];
  }

  /** Profiles whose gateway account said, on its latest answer, that its balance or quota is used up. */
  quotaExhaustedProfiles(): string[] {
    return [...this.#quotaExhausted];
  }

  /** A new key was set: the rejection was about the old one. */
  keyReplaced(profileId: string): void {
    this.#keyRejected.delete(profileId);
    this.statusChanged();
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#sinks.clear();
  }

  /**
   * Keeps what a window that connects later is first sent (the requests in flight), and with a
   * window open merges the event's update into the next frame. With none open, events that change
   * nothing in flight (a request's headers and body, its end) cost no update, and a delta only
   * its stream's tail.
   */
  #onEvent(event: RequestLifecycleEvent): void {
    const watched = this.#sinks.size > 0;
    if (event.type === 'request' || event.type === 'end') {
      if (event.type === 'request') this.#keepRequest(event);
      else this.#forget(event);
      if (watched) this.#merge(event, updateFromEvent(event));
      return;
    }
    if (event.type === 'delta' && !watched) {
      const entry = this.#inFlight.get(event.requestId);
      if (entry) entry.text = textTail(entry.text, event.text);
      return;
    }
    const update = updateFromEvent(event);
    this.#follow(event, update);
    if (watched) this.#merge(event, update);
  }

  #merge(event: RequestLifecycleEvent, update: LiveRequestUpdate): void {
    mergeUpdate(this.#pending, update);
    if (event.type === 'start' || event.type === 'end') this.#statusDirty = true;
    this.#schedule();
  }

  /** A request in flight as its events change it. */
  #follow(event: RequestLifecycleEvent, update: LiveRequestUpdate): void {
    if (event.type === 'start') {
      this.#inFlight.set(event.requestId, { fields: { ...update.fields }, text: '' });
      this.#profileOf.set(event.requestId, event.profileId);
      return;
    }
    const entry = this.#inFlight.get(event.requestId);
    if (!entry) return;
    Object.assign(entry.fields, update.fields);
    if (update.appendText) entry.text = textTail(entry.text, update.appendText);
  }

  #keepRequest(event: Extract<RequestLifecycleEvent, { type: 'request' }>): void {
    if (this.#inFlight.has(event.requestId))
      this.#requests.set(event.requestId, { headers: event.requestHeaders, readBody: event.readBody });
  }

  #forget(event: RequestEndEvent): void {
    this.#inFlight.delete(event.requestId);
    this.#requests.delete(event.requestId);
    const profileId = this.#profileOf.get(event.requestId);
    this.#profileOf.delete(event.requestId);
    if (!profileId) return;
    if (event.errorClass === 'auth') this.#keyRejected.add(profileId);
    else if (event.status < 400) this.#keyRejected.delete(profileId);
    if (event.errorClass === 'quota_exhausted') this.#quotaExhausted.add(profileId);
    else if (event.status < 400) this.#quotaExhausted.delete(profileId);
  }

  #schedule(): void {
    if (this.#timer || this.#sinks.size === 0) return;
    this.#timer = setTimeout(() => this.#flush(), this.#options.frameIntervalMs);
  }

  #flush(): void {
    this.#timer = null;
    const mask = this.#frameMask();
    const requests = [...this.#pending.values()].map((update) => maskedUpdate(update, mask));
    this.#pending = new Map();
    const status = this.#statusDirty ? this.#options.status() : null;
    this.#statusDirty = false;
    if (requests.length === 0 && status === null) return;
    const frame: LiveFrame = { requests, status };
    for (const sink of this.#sinks) sink(frame);
  }

  /** One list for the whole frame: the same array each call is what lets redact.ts reuse its forms. */
  #frameMask(): (text: string) => string {
    const secrets = this.#options.knownSecrets();
    return (text) => redactSecrets(text, secrets);
  }
}

/** The update's free text masked (the text then cut to what a window shows); the update is the hub's own copy, so it is changed in place. */
function maskedUpdate(update: LiveRequestUpdate, mask: (text: string) => string): LiveRequestUpdate {
  const { fields } = update;
  if (fields.clientPath !== undefined) fields.clientPath = mask(fields.clientPath);
  if (typeof fields.clientName === 'string') fields.clientName = mask(fields.clientName);
  if (typeof fields.requestedModel === 'string') fields.requestedModel = mask(fields.requestedModel);
  if (typeof fields.responseModel === 'string') fields.responseModel = mask(fields.responseModel);
  if (typeof fields.summary === 'string') fields.summary = mask(fields.summary);
  update.appendText = maskedText(update.appendText, mask);
  return update;
}
