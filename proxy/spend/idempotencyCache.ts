import type { IdempotencyStore, PersistedIdempotency, StoredResponse } from '../contracts/idempotencyStore.ts';
import type { LocalRefusal } from '../contracts/ports.ts';

/**
 * Answers a repeated side-effect request (same profile, same idempotency key, within the window)
 * with the first request's response instead of sending it again. While the first is in flight a
 * repeat waits for it rather than getting a 409: a client retrying after its own timeout then
 * receives the task the gateway created, which is what it wanted. The wait is bounded (the
 * repeat's total timeout); past it the repeat gets a 409 saying the first still runs. A durable
 * store (the request log's database) keeps the answers, so a repeat after a restart is still
 * answered, never sent again; memory holds an answer only when there is no store or it could not
 * write one, bounded by entry count and bytes (least recently used first).
 */
export interface IdempotencyCacheOptions {
  windowMs: number;
  maxEntries: number;
  maxTotalBytes: number;
  /** A larger response is not kept; its repeat is refused (never re-sent). */
  maxBodyBytes: number;
}

export const DEFAULT_IDEMPOTENCY_OPTIONS: IdempotencyCacheOptions = {
  windowMs: 24 * 3_600_000,
  maxEntries: 500,
  maxTotalBytes: 64 * 1024 * 1024,
  // gpt-image-1 answers base64 only: a 1024x1024 PNG (3 MB of pixels) is estimated at 1-3 MB, a
  // third more as base64, a 1536x1024 one more; 8 MiB keeps one image of any size and most pairs.
  maxBodyBytes: 8 * 1024 * 1024,
};

/** Response headers worth replaying; everything else (cookies, hop-by-hop, lengths) is dropped. */
export const REPLAYED_HEADERS = ['content-type', 'x-request-id', 'request-id', 'x-task-id', 'location'] as const;
const REPLAY_MARKER_HEADER = 'x-airlock-idempotent-replay';

export interface FirstResponse extends StoredResponse {
  /** The caller stopped capturing at `maxBodyBytes`: the body cannot be replayed. */
  bodyTruncated: boolean;
}

export interface IdempotencyTicket {
  /** The first request may have run at the gateway and ended with this response (the gateway's, or Airlock's error for a broken one). */
  complete(response: FirstResponse): void;
  /** It certainly did not run (never reached the gateway, or the gateway refused it): a repeat may be sent. */
  abandon(): void;
  /** It may have run but got no whole answer (cut off, timed out, Airlock stopped): a repeat is refused, after a restart too. */
  outcomeUnknown(): void;
}

export type IdempotencyClaim =
  | { kind: 'first'; ticket: IdempotencyTicket }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'refused'; refusal: LocalRefusal };

/** `fingerprint` is the first request's (method, path and body hashed); null when it was not known (kept before it was recorded). */
type Entry =
  | { state: 'in-flight'; createdAtMs: number; requestId: string; fingerprint: string | null; settled: Promise<void> }
  | { state: 'done'; createdAtMs: number; requestId: string; fingerprint: string | null; response: StoredResponse | null; bytes: number }
  | { state: 'unknown'; createdAtMs: number; requestId: string; fingerprint: string | null; bytes: number };

export interface ClaimOptions {
  /** How long a repeat waits for a first still in flight before it is refused; unbounded when absent. */
  maxWaitMs?: number;
  /** The repeat's client left: stop waiting. */
  signal?: AbortSignal;
  /** The request's method, path and body hashed: a repeat whose fingerprint differs is another request and is refused. */
  requestFingerprint?: string;
}

export interface IdempotencyCacheDependencies {
  nowMs?: () => number;
  store?: IdempotencyStore;
  /**
   * A store failure is reported. One that writes goes on from memory (a busy or full log never
   * fails a request); one that cannot read refuses the key, which may have a first that ran.
   */
  onStoreError?: (error: unknown) => void;
  /** The refusal of a key whose record could not be read, by the read's error; UNREADABLE_STORE_REFUSAL unless given. */
  unreadableRefusal?: (error: unknown) => LocalRefusal;
}

export class IdempotencyCache {
  readonly options: IdempotencyCacheOptions;
  readonly #nowMs: () => number;
  readonly #durable: IdempotencyStore | null;
  readonly #onStoreError: (error: unknown) => void;
  readonly #unreadableRefusal: (error: unknown) => LocalRefusal;
  readonly #entries = new Map<string, Entry>();
  #totalBytes = 0;

  constructor(options: Partial<IdempotencyCacheOptions> = {}, dependencies: IdempotencyCacheDependencies = {}) {
    this.options = { ...DEFAULT_IDEMPOTENCY_OPTIONS, ...options };
    this.#nowMs = dependencies.nowMs ?? Date.now;
    this.#durable = dependencies.store ?? null;
    this.#onStoreError = dependencies.onStoreError ?? ((error) => console.error('[airlock] idempotency store failed:', error));
    this.#unreadableRefusal = dependencies.unreadableRefusal ?? (() => UNREADABLE_STORE_REFUSAL);
  }

  get size(): number {
    return this.#entries.size;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** `requestId` is the request that will be sent if this is the first: a later refusal names it. */
  async claim(profileId: string, idempotencyKey: string, requestId: string, options: ClaimOptions = {}): Promise<IdempotencyClaim> {
    const key = `${profileId}\u0000${idempotencyKey}`;
    const deadlineMs = options.maxWaitMs === undefined ? Number.POSITIVE_INFINITY : this.#nowMs() + options.maxWaitMs;
    const fingerprint = options.requestFingerprint ?? null;
    for (;;) {
      const live = this.#liveEntry(key);
      const entry = live ?? this.#fromStore(profileId, idempotencyKey);
      if (!entry) return { kind: 'first', ticket: this.#startFirst(key, { profileId, idempotencyKey, requestId, fingerprint }) };
      // Checked before waiting for a first in flight: another request under its key is refused at once.
      if (entry.state !== 'unreadable' && fingerprint !== null && entry.fingerprint !== null && entry.fingerprint !== fingerprint)
        return { kind: 'refused', refusal: differentRequestRefusal(entry.requestId) };
      if (entry.state === 'unknown_outcome' || entry.state === 'unknown')
        return { kind: 'refused', refusal: unknownOutcomeRefusal(entry.requestId) };
      if (entry.state === 'unreadable') return { kind: 'refused', refusal: entry.refusal };
      if (entry.state === 'in-flight') {
        // Then look again: the first may have been stored, or abandoned (one waiter becomes first).
        if (!(await settledWithin(entry.settled, deadlineMs - this.#nowMs(), options.signal))) {
          return { kind: 'refused', refusal: stillRunningRefusal(entry.requestId, options.maxWaitMs ?? 0) };
        }
        continue;
      }
      if (live !== undefined) {
        // Used now: last to be evicted.
        this.#entries.delete(key);
        this.#entries.set(key, entry);
      }
      if (entry.response === null) return { kind: 'refused', refusal: unavailableRefusal(this.options.maxBodyBytes) };
      return { kind: 'replay', response: withReplayMarker(entry.response) };
    }
  }

  #liveEntry(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.state !== 'in-flight' && this.#nowMs() - entry.createdAtMs >= this.options.windowMs) {
      this.#remove(key, entry);
      return undefined;
    }
    return entry;
  }

  /**
   * A stored answer, read for this repeat and not kept in memory (the store keeps it); an entry a
   * stopped run left in flight is refused. A store that cannot be read (a damaged log) may hold a
   * first for this key: refused, not sent.
   */
  #fromStore(
    profileId: string,
    idempotencyKey: string,
  ):
    | Entry
    | { state: 'unknown_outcome'; requestId: string; fingerprint: string | null }
    | { state: 'unreadable'; refusal: LocalRefusal }
    | undefined {
    let persisted: PersistedIdempotency | null = null;
    try {
      persisted = this.#durable?.find(profileId, idempotencyKey, this.#nowMs() - this.options.windowMs) ?? null;
    } catch (error) {
      this.#onStoreError(error);
      return { state: 'unreadable', refusal: this.#unreadableRefusal(error) };
    }
    if (!persisted) return undefined;
    if (persisted.state === 'in_flight')
      return { state: 'unknown_outcome', requestId: persisted.requestId, fingerprint: persisted.fingerprint };
    const { createdAtMs, requestId, fingerprint } = persisted;
    const response = persisted.state === 'answered' ? persisted.response : null;
    return { state: 'done', createdAtMs, requestId, fingerprint, response, bytes: 0 };
  }

  #startFirst(
    key: string,
    first: { profileId: string; idempotencyKey: string; requestId: string; fingerprint: string | null },
  ): IdempotencyTicket {
    let settle = (): void => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const inFlight: Entry = {
      state: 'in-flight',
      createdAtMs: this.#nowMs(),
      requestId: first.requestId,
      fingerprint: first.fingerprint,
      settled,
    };
    this.#entries.set(key, inFlight);
    this.#withStore((store) =>
      store.begin(first.profileId, first.idempotencyKey, {
        requestId: first.requestId,
        createdAtMs: inFlight.createdAtMs,
        fingerprint: first.fingerprint,
      }),
    );
    let finished = false;
    const finish = (outcome: StoredResponse | null | 'forget' | 'unknown'): void => {
      if (finished) return;
      finished = true;
      this.#entries.delete(key);
      if (outcome === 'forget') {
        this.#withStore((store) => store.forget(first.profileId, first.idempotencyKey));
      } else if (outcome === 'unknown') {
        // The store keeps it in flight, as a run that stopped leaves it: refused after a restart as well.
        const bytes = Buffer.byteLength(key);
        this.#keep(key, {
          state: 'unknown',
          createdAtMs: inFlight.createdAtMs,
          requestId: first.requestId,
          fingerprint: first.fingerprint,
          bytes,
        });
      } else {
        const stored = this.#withStore((store) => {
          store.settle(first.profileId, first.idempotencyKey, outcome);
          store.prune(this.#nowMs() - this.options.windowMs, this.options.maxTotalBytes);
          return true;
        });
        // Memory keeps only what the store could not take: a burst of keyed image answers (up to
        // maxBodyBytes each) held there for the whole window kept tens of MB resident (issue 20).
        if (stored !== true) this.#remember(key, inFlight, outcome);
      }
      settle();
    };
    return {
      complete: (response) => finish(this.#keepable(response)),
      abandon: () => finish('forget'),
      outcomeUnknown: () => finish('unknown'),
    };
  }

  #withStore<T>(use: (store: IdempotencyStore) => T): T | undefined {
    if (!this.#durable) return undefined;
    try {
      return use(this.#durable);
    } catch (error) {
      this.#onStoreError(error);
      return undefined;
    }
  }

  /** An answer too large (or cut short) to replay is not kept: its repeat is refused, never resent. */
  #keepable(response: FirstResponse): StoredResponse | null {
    if (response.bodyTruncated || response.body.length > this.options.maxBodyBytes) return null;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = response.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    return { status: response.status, headers, body: response.body };
  }

  #remember(
    key: string,
    first: { createdAtMs: number; requestId: string; fingerprint: string | null },
    response: StoredResponse | null,
  ): Entry {
    const bytes = Buffer.byteLength(key) + (response?.body.length ?? 0);
    const { createdAtMs, requestId, fingerprint } = first;
    return this.#keep(key, { state: 'done', createdAtMs, requestId, fingerprint, response, bytes });
  }

  #keep(key: string, entry: Exclude<Entry, { state: 'in-flight' }>): Entry {
    this.#entries.set(key, entry);
    this.#totalBytes += entry.bytes;
    this.#evict();
    return entry;
  }

  /** Oldest-used first; in-flight entries hold no body and are never evicted. */
  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.options.maxEntries && this.#totalBytes <= this.options.maxTotalBytes) return;
      if (entry.state !== 'in-flight') this.#remove(key, entry);
    }
  }

  #remove(key: string, entry: Exclude<Entry, { state: 'in-flight' }>): void {
    this.#entries.delete(key);
    this.#totalBytes -= entry.bytes;
  }
}

/** Whether `settled` resolved within `waitMs` (and before `signal` aborted). */
async function settledWithin(settled: Promise<void>, waitMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (waitMs <= 0 || signal?.aborted) return false;
  if (waitMs === Number.POSITIVE_INFINITY && signal === undefined) {
    await settled;
    return true;
  }
  let stop = (): void => {};
  const stopped = new Promise<boolean>((resolve) => {
    const timer = waitMs === Number.POSITIVE_INFINITY ? null : setTimeout(() => resolve(false), waitMs);
    const onAbort = (): void => resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
    stop = () => {
      if (timer !== null) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
  });
  try {
    return await Promise.race([settled.then(() => true), stopped]);
  } finally {
    stop();
  }
}

function withReplayMarker(response: StoredResponse): StoredResponse {
  return { ...response, headers: { ...response.headers, [REPLAY_MARKER_HEADER]: 'true' } };
}

function unknownOutcomeRefusal(firstRequestId: string): LocalRefusal {
  return {
    status: 409,
    errorClass: 'invalid_request',
    code: 'idempotency_key_reused',
    message:
      `The first request with this idempotency key (${firstRequestId}) may have reached the gateway but got no complete answer (it was cut off, ` +
      'timed out, or Airlock stopped while it ran), so whether the gateway created the task is unknown, and a task whose outcome is unknown is never sent again. Check the gateway for the task, or use a new key to create a new one.',
  };
}

function stillRunningRefusal(firstRequestId: string, waitedMs: number): LocalRefusal {
  return {
    status: 409,
    errorClass: 'invalid_request',
    code: 'idempotency_key_in_progress',
    message:
      `The first request with this idempotency key (${firstRequestId}) is still running at the gateway, and Airlock waited ` +
      `${Math.round(waitedMs / 1000)} s (the profile's total timeout) for its answer. Whether it creates the task is not known until it answers, ` +
      'so it is not sent twice. Repeat this request with the same idempotency key later to get its answer once it arrives, or use a new key to create another task.',
  };
}

/** draft-ietf-httpapi-idempotency-key-header (error scenarios): a key reused with another payload is a 422; Stripe errors likewise. */
function differentRequestRefusal(firstRequestId: string): LocalRefusal {
  return {
    status: 422,
    errorClass: 'invalid_request',
    code: 'idempotency_key_reused_with_different_request',
    message:
      `This idempotency key was already used for another request (${firstRequestId}, with a different body or path), so this one is not sent, ` +
      'and the first answer is not given for it either. A key names one request: use a new key for a new request, or send the first request unchanged to get its answer.',
  };
}

/**
 * A read of the record that failed for now (a busy log, a disk error): 503, as RFC 9110 section
 * 15.6.4 has it for a condition likely to pass, so a repeat later with the same key is the way on.
 */
export const UNREADABLE_STORE_REFUSAL: LocalRefusal = {
  status: 503,
  errorClass: 'log_unreadable',
  code: 'idempotency_key_unverifiable',
  message:
    'Airlock could not read its record of keyed image and video creations just now (the request log did not answer; its error is in the Airlock output), ' +
    'so it cannot tell whether a request with this idempotency key was already sent, and it does not send it to avoid creating the task twice. ' +
    'Send it again later with the same idempotency key, or use a new key to create a new task.',
};

function unavailableRefusal(maxBodyBytes: number): LocalRefusal {
  const limitMiB = Math.round((maxBodyBytes / (1024 * 1024)) * 10) / 10;
  return {
    status: 409,
    errorClass: 'invalid_request',
    code: 'idempotency_key_reused',
    message:
      'A request with this idempotency key was already sent to the gateway, and Airlock could not keep its answer (larger than ' +
      `${limitMiB} MiB, or it held your key, which Airlock never stores), so it is not sent again. Look the first request up in the Airlock log, or use a new key to create a new task.`,
  };
}
