export interface StopReport {
  /** Requests still running after the drain, ended by the stop (a stream got an error event). */
  endedRequests: number;
  /** Requests whose handler had not finished when the stop gave up waiting: their rows stay in flight. */
  unfinishedRequests: number;
}

/**
 * What a stop needs from the forwarding pipeline: a way to end every exchange still running (a
 * stream gets its protocol's error event, never a bare TCP reset), and to know when the last
 * request handler has finished, which is when its row has been handed to the log.
 */
export class ForwardShutdown {
  readonly #onStop = new Set<() => void>();
  #idleWaiters: (() => void)[] = [];
  #running = 0;
  #stopping = false;

  /** A request handler started; it counts until it has finished (accounting and the log's row come last). */
  enter(): void {
    this.#running += 1;
  }

  leave(): void {
    this.#running -= 1;
    if (this.#running > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** `end` is called when the proxy stops; at once if it is stopping already. */
  watch(end: () => void): void {
    if (this.#stopping) end();
    else this.#onStop.add(end);
  }

  unwatch(end: () => void): void {
    this.#onStop.delete(end);
  }

  /** Resolves once every handler has finished, or after `maxWaitMs`: the drain, before anything is ended. */
  async idle(maxWaitMs: number): Promise<void> {
    if (this.#running > 0 && maxWaitMs > 0) await this.#settled(maxWaitMs);
  }

  /**
   * Ends every exchange still running, and every request still before its exchange (reading its
   * body, waiting for a token count); resolves once every handler has finished, or after
   * `maxWaitMs`, with how many requests it ended and how many handlers had not finished.
   */
  async stopAll(maxWaitMs: number): Promise<StopReport> {
    this.#stopping = true;
    const ends = [...this.#onStop];
    this.#onStop.clear();
    for (const end of ends) end();
    if (this.#running > 0) await this.#settled(maxWaitMs);
    return { endedRequests: ends.length, unfinishedRequests: this.#running };
  }

  async #settled(maxWaitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#idleWaiters.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, maxWaitMs);
      }),
    ]);
    clearTimeout(timer);
  }
}

/** What a wait cut short by the stop gives instead of its value. */
export const STOPPED: unique symbol = Symbol('stopped');

/**
 * `work`, or STOPPED as soon as `stopping` aborts: a request before its exchange does not hold the
 * stop for its token count or its translation. The work still runs to its end, unheard.
 */
export function untilStopped<T>(work: Promise<T>, stopping: AbortSignal): Promise<T | typeof STOPPED> {
  return new Promise((resolve, reject) => {
    const onStop = (): void => resolve(STOPPED);
    if (stopping.aborted) onStop();
    else stopping.addEventListener('abort', onStop, { once: true });
    work.then(
      (value) => {
        stopping.removeEventListener('abort', onStop);
        resolve(value);
      },
      (error: unknown) => {
        stopping.removeEventListener('abort', onStop);
        reject(error);
      },
    );
  });
}
