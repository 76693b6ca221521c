import type { LocalRefusal } from '../pipeline/services.ts';

/**
 * Answers a repeated side-effect request (same profile, same idempotency key, within the window)
 * with the first request's response instead of sending it again. While the first is in flight a
 * repeat waits for it rather than getting a 409: a client retrying after its own timeout then
 * receives the task the gateway created, which is what it wanted. Memory is bounded by entry
 * count and bytes (least recently used first); a restart forgets, the log keeps the first row.
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
  maxBodyBytes: 2 * 1024 * 1024,
};

/** Response headers worth replaying; everything else (cookies, hop-by-hop, lengths) is dropped. */
export const REPLAYED_HEADERS = ['content-type', 'x-request-id', 'request-id', 'x-task-id', 'location'] as const;
export const REPLAY_MARKER_HEADER = 'x-airlock-idempotent-replay';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface FirstResponse extends StoredResponse {
  /** The caller stopped capturing at `maxBodyBytes`: the body cannot be replayed. */
  bodyTruncated: boolean;
}

export interface IdempotencyTicket {
  /** The first request ended with a response (an upstream one, or Airlock's error for a broken one). */
  complete(response: FirstResponse): void;
  /** It certainly never reached the gateway: a repeat may be sent. */
  abandon(): void;
}

export type IdempotencyClaim =
  | { kind: 'first'; ticket: IdempotencyTicket }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'refused'; refusal: LocalRefusal };

type Entry =
  | { state: 'in-flight'; createdAtMs: number; settled: Promise<void> }
  | { state: 'done'; createdAtMs: number; response: StoredResponse | null; bytes: number };

export class IdempotencyCache {
  readonly options: IdempotencyCacheOptions;
  readonly #nowMs: () => number;
  readonly #entries = new Map<string, Entry>();
  #totalBytes = 0;

  constructor(options: Partial<IdempotencyCacheOptions> = {}, nowMs: () => number = Date.now) {
    this.options = { ...DEFAULT_IDEMPOTENCY_OPTIONS, ...options };
    this.#nowMs = nowMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  async claim(profileId: string, idempotencyKey: string): Promise<IdempotencyClaim> {
    const key = `${profileId}\u0000${idempotencyKey}`;
    for (;;) {
      const entry = this.#liveEntry(key);
      if (!entry) return { kind: 'first', ticket: this.#startFirst(key) };
      if (entry.state === 'in-flight') {
        // Then look again: the first may have been stored, or abandoned (one waiter becomes first).
        await entry.settled;
        continue;
      }
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      if (entry.response === null) return { kind: 'refused', refusal: unavailableRefusal(this.options.maxBodyBytes) };
      return { kind: 'replay', response: withReplayMarker(entry.response) };
    }
  }

  #liveEntry(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.state === 'done' && this.#nowMs() - entry.createdAtMs >= this.options.windowMs) {
      this.#remove(key, entry);
      return undefined;
    }
    return entry;
  }

  #startFirst(key: string): IdempotencyTicket {
    let settle = (): void => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const inFlight: Entry = { state: 'in-flight', createdAtMs: this.#nowMs(), settled };
    this.#entries.set(key, inFlight);
    let finished = false;
    const finish = (outcome: StoredResponse | null | 'forget'): void => {
      if (finished) return;
      finished = true;
      this.#entries.delete(key);
      if (outcome !== 'forget') this.#store(key, inFlight.createdAtMs, outcome);
      settle();
    };
    return {
      complete: (response) => finish(this.#keepable(response)),
      abandon: () => finish('forget'),
    };
  }

  /**
   * 4xx answers mean the gateway did not act (bad request, auth, rate limit): forget them so the
   * client can fix and retry. Anything else may have created a task and is kept.
   */
  #keepable(response: FirstResponse): StoredResponse | null | 'forget' {
    if (response.status >= 400 && response.status < 500) return 'forget';
    if (response.bodyTruncated || response.body.length > this.options.maxBodyBytes) return null;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = response.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    return { status: response.status, headers, body: response.body };
  }

  #store(key: string, createdAtMs: number, response: StoredResponse | null): void {
    const bytes = Buffer.byteLength(key) + (response?.body.length ?? 0);
    this.#entries.set(key, { state: 'done', createdAtMs, response, bytes });
    this.#totalBytes += bytes;
    this.#evict();
  }

  /** Oldest-used first; in-flight entries hold no body and are never evicted. */
  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.options.maxEntries && this.#totalBytes <= this.options.maxTotalBytes) return;
      if (entry.state === 'done') this.#remove(key, entry);
    }
  }

  #remove(key: string, entry: Extract<Entry, { state: 'done' }>): void {
    this.#entries.delete(key);
    this.#totalBytes -= entry.bytes;
  }
}

function withReplayMarker(response: StoredResponse): StoredResponse {
  return { ...response, headers: { ...response.headers, [REPLAY_MARKER_HEADER]: 'true' } };
}

function unavailableRefusal(maxBodyBytes: number): LocalRefusal {
  const limitMiB = Math.round((maxBodyBytes / (1024 * 1024)) * 10) / 10;
  return {
    status: 409,
    errorClass: 'invalid_request',
    code: 'idempotency_key_reused',
    message:
      'A request with this idempotency key was already sent to the gateway, and its response was too large for Airlock to keep ' +
      `(over ${limitMiB} MiB), so it is not sent again. Look the first request up in the Airlock log, or use a new key to create a new task.`,
  };
}
