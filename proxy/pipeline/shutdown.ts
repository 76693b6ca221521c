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

  /**
   * Ends every exchange still running; resolves once every handler has finished, or after
   * `maxWaitMs`, with how many exchanges it ended and how many handlers had not finished.
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
