import { setMaxListeners } from 'node:events';
import type { StopBeforeExchange } from './stageRecords.ts';

export interface StopReport {
  /** Requests still running after the drain, ended by the stop (a stream got an error event). */
  endedRequests: number;
  /** Requests whose handler had not finished when the stop gave up waiting: their rows stay in flight. */
  unfinishedRequests: number;
  /** Answers whose clients had not taken their last bytes (a stream's end) when the stop closed the connections. */
  cutAnswers: number;
}

/**
 * What a stop needs from the forwarding pipeline: a way to end every exchange still running (a
 * stream gets its protocol's error event, never a bare TCP reset), and to know when the last
 * request handler has finished, which is when its row has been handed to the log.
 */
export class ForwardShutdown {
  readonly #onStop = new Set<() => void>();
  /**
   * One signal for every request before its exchange, aborted by the stop, instead of a controller,
   * two closures and a watcher per request. Every request in flight may be listening to it at once
   * (while its body is read), so it takes any number of listeners.
   */
  readonly #beforeExchange = new AbortController();
  /** Shared with each request's record, which takes itself off when its exchange starts. */
  readonly #waiting = { beforeExchange: 0 };
  #idleWaiters: (() => void)[] = [];
  #running = 0;
  #stopping = false;

  constructor() {
    setMaxListeners(0, this.#beforeExchange.signal);
  }

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

  /** A request before its exchange: the stop ends it at once, until its exchange starts and watches the stop itself. */
  beforeExchange(): StopBeforeExchange {
    this.#waiting.beforeExchange += 1;
    return new RequestBeforeExchange(this.#beforeExchange.signal, this.#waiting);
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
  async stopAll(maxWaitMs: number): Promise<Omit<StopReport, 'cutAnswers'>> {
    this.#stopping = true;
    const ends = [...this.#onStop];
    const endedBeforeExchange = this.#waiting.beforeExchange;
    this.#onStop.clear();
    this.#beforeExchange.abort();
    for (const end of ends) end();
    if (this.#running > 0) await this.#settled(maxWaitMs);
    return { endedRequests: ends.length + endedBeforeExchange, unfinishedRequests: this.#running };
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

class RequestBeforeExchange implements StopBeforeExchange {
  readonly signal: AbortSignal;
  #waiting: { beforeExchange: number } | null;

  constructor(signal: AbortSignal, waiting: { beforeExchange: number }) {
    this.signal = signal;
    this.#waiting = waiting;
  }

  exchangeStarts(): void {
    if (this.#waiting !== null) this.#waiting.beforeExchange -= 1;
    this.#waiting = null;
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
