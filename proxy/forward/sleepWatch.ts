/**
 * How far the wall clock may run ahead of the monotonic clock between two looks before the machine
 * is taken to have slept: on Linux the monotonic clock (performance.now, libuv's hrtime,
 * CLOCK_MONOTONIC) stands still while the machine is suspended, the wall clock does not. On macOS
 * libuv's hrtime runs on through sleep (mach_continuous_time, libuv/libuv#2894), so nothing is seen
 * there, nor needed: the timers run on it too and fire at the wake. NTP slews the wall clock by
 * milliseconds, far below this; a wall clock set forward is taken as a sleep too, which costs a
 * new connection.
 */
export const SLEEP_SEEN_AFTER_MS = 5_000;

/** Tells, when looked at, whether the machine slept since the last look. */
export class SleepWatch {
  readonly #wallMs: () => number;
  readonly #monotonicMs: () => number;
  #offsetMs: number;

  constructor(wallMs: () => number = Date.now, monotonicMs: () => number = () => performance.now()) {
    this.#wallMs = wallMs;
    this.#monotonicMs = monotonicMs;
    this.#offsetMs = wallMs() - monotonicMs();
  }

  /** True once for each sleep seen since the last look; a wall clock set back is no sleep. */
  slept(): boolean {
    const offsetMs = this.#wallMs() - this.#monotonicMs();
    const slept = offsetMs - this.#offsetMs > SLEEP_SEEN_AFTER_MS;
    this.#offsetMs = offsetMs;
    return slept;
  }
}
