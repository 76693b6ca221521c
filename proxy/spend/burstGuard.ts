import { formatCredits } from '../contracts/amounts.ts';
import { burstLimitsSchema, type BurstLimits } from '../contracts/config.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import { TimedQueue } from './timedQueue.ts';
import { PLAIN_HINT, type CommandHint } from '../contracts/cli.ts';

/**
 * Runaway protection: a client that sends more than `maxRequests` requests or spends more than
 * `maxCredits` within one sliding window is paused until the user resumes it. A pause is sticky
 * on purpose: a looping agent must not be let back in just because a minute passed.
 */
export interface BurstGuardOptions {
  windowMs: number;
  maxRequests: number;
  maxCredits: number;
}

/** The guard's options from the config's limits (a one-minute window). */
export function burstGuardOptionsFrom(limits: BurstLimits): BurstGuardOptions {
  return { windowMs: 60_000, maxRequests: limits.maxRequestsPerMinute, maxCredits: limits.maxCreditsPerMinute };
}

export const DEFAULT_BURST_GUARD_OPTIONS: BurstGuardOptions = burstGuardOptionsFrom(burstLimitsSchema.parse({}));

/**
 * A count limit at or above this is never reached: the window's request times sit in one array,
 * and a JavaScript array holds at most 2^32 - 1 entries. Such a limit (Infinity turns the count off)
 * keeps no request times: at thousands of requests a second a minute of them is hundreds of KB,
 * held until the client's next request.
 */
export const UNREACHABLE_REQUEST_COUNT = 2 ** 32 - 1;

/** Requests without a client token share one burst window under this name. */
export const ANONYMOUS_CLIENT = '(no client token)';

export interface ClientPause {
  clientName: string;
  pausedAtMs: number;
  reason: string;
}

interface ClientWindow {
  requestTimesMs: TimedQueue<number>;
  spends: TimedQueue<{ atMs: number; credits: number; running?: RunningSpend }>;
  windowCredits: number;
}

/** Fixed options, or a function read at every use so edited limits apply to the next request. */
export type BurstGuardSettings = Partial<BurstGuardOptions> | (() => Partial<BurstGuardOptions>);

/** A running request's estimate: what it counted in all, and how much of that its client's window still holds. */
interface RunningSpend {
  counted: number;
  inWindow: number;
}

export class BurstGuard {
  readonly #settings: BurstGuardSettings;
  readonly #windows = new Map<string, ClientWindow>();
  readonly #paused = new Map<string, ClientPause>();
  /** What each running request's estimate has counted so far (`spentSoFar`), until its cost replaces it. */
  readonly #running = new Map<string, RunningSpend>();
  /** Names the CLI's resume in the refusal, so a terminal user can act: it reaches the running proxy, so its --port too. */
  readonly #hint: CommandHint;

  constructor(settings: BurstGuardSettings = {}, hint: CommandHint = PLAIN_HINT) {
    this.#settings = settings;
    this.#hint = hint;
  }

  /** The options now: read once per request or spend, so one decision never mixes two edits. */
  #currentOptions(): BurstGuardOptions {
    return { ...DEFAULT_BURST_GUARD_OPTIONS, ...(typeof this.#settings === 'function' ? this.#settings() : this.#settings) };
  }

  /** The refusal for a paused client, without counting anything. */
  pausedRefusal(clientName: string): LocalRefusal | null {
    const pause = this.#paused.get(clientName);
    return pause ? pausedRefusal(pause, this.#hint) : null;
  }

  /** Counts one request; the request that crosses the limit is the first one refused. */
  admit(clientName: string, nowMs: number): LocalRefusal | null {
    const existing = this.pausedRefusal(clientName);
    if (existing) return existing;
    const options = this.#currentOptions();
    if (options.maxRequests >= UNREACHABLE_REQUEST_COUNT) {
      // Nothing to count against; a limit lowered later counts the requests from its edit on.
      this.#windows.get(clientName)?.requestTimesMs.clear();
      return null;
    }
    const window = this.#window(clientName, nowMs, options.windowMs);
    window.requestTimesMs.push(nowMs);
    const count = window.requestTimesMs.size;
    if (count <= options.maxRequests) return null;
    return pausedRefusal(
      this.#pause(clientName, nowMs, `${count} requests within ${windowText(options)} (limit ${options.maxRequests})`),
      this.#hint,
    );
  }

  /**
   * A running request's spend so far, as its estimate grows (a stream's, about once a second): the
   * growth counts in its client's window when it is spent, so long streams a runaway agent started
   * together pause it while they run, not only once they end. `recordCredits` with the same request
   * id replaces the estimate with the cost.
   */
  spentSoFar(clientName: string, requestId: string, credits: number, atMs: number): void {
    let running = this.#running.get(requestId);
    if (running === undefined) {
      running = { counted: 0, inWindow: 0 };
      this.#running.set(requestId, running);
    }
    const growth = credits - running.counted;
    running.counted = credits;
    this.#addSpend(clientName, growth, atMs, running);
  }

  /**
   * Adds a finished request's cost, less what its running estimate counted already (`requestId`);
   * crossing the credit limit pauses the client's later requests. The cost replaces the estimate as
   * it does on the request's row: none (null) takes the estimate back.
   */
  recordCredits(clientName: string, credits: number | null, atMs: number, requestId?: string): void {
    const running = requestId !== undefined && this.#running.size > 0 ? this.#running.get(requestId) : undefined;
    if (running === undefined) {
      this.#addSpend(clientName, credits ?? 0, atMs);
      return;
    }
    this.#running.delete(requestId as string);
    // An over-estimate is taken back only from what of it the window still holds: the part that aged
    // out (a long stream) or went with a pause or a resume is no longer counted, and taking it back
    // too left the window below zero, letting the next minute spend past the limit unpaused.
    this.#window(clientName, atMs, this.#currentOptions().windowMs);
    this.#addSpend(clientName, Math.max((credits ?? 0) - running.counted, -running.inWindow), atMs);
  }

  /** Spend, or a correction of an estimate counted before (negative when the cost came out lower). */
  #addSpend(clientName: string, credits: number, atMs: number, running?: RunningSpend): void {
    if (credits === 0 || Number.isNaN(credits) || this.#paused.has(clientName)) return;
    const options = this.#currentOptions();
    const window = this.#window(clientName, atMs, options.windowMs);
    window.spends.push(running === undefined ? { atMs, credits } : { atMs, credits, running });
    window.windowCredits += credits;
    if (running !== undefined) running.inWindow += credits;
    if (credits > 0 && window.windowCredits > options.maxCredits) {
      const spent = formatCredits(window.windowCredits);
      this.#pause(clientName, atMs, `${spent} credits within ${windowText(options)} (limit ${formatCredits(options.maxCredits)})`);
    }
  }

  resume(clientName: string): boolean {
    this.#dropWindow(clientName);
    return this.#paused.delete(clientName);
  }

  /** Forgets a client's window, and that running requests' estimates are in it. */
  #dropWindow(clientName: string): void {
    this.#windows.get(clientName)?.spends.dropThrough(Number.POSITIVE_INFINITY, leftWindow);
    this.#windows.delete(clientName);
  }

  pausedClients(): ClientPause[] {
    return [...this.#paused.values()];
  }

  #pause(clientName: string, atMs: number, reason: string): ClientPause {
    const pause = { clientName, pausedAtMs: atMs, reason };
    this.#paused.set(clientName, pause);
    this.#dropWindow(clientName);
    return pause;
  }

  /** The client's window with everything older than `windowMs` before `nowMs` dropped. */
  #window(clientName: string, nowMs: number, windowMs: number): ClientWindow {
    const kept = this.#windows.get(clientName);
    // The wall clock was set back: times from before the step could not leave the window until the
    // clock caught up (an hour's step, an hour of a client's usual pace counted as one burst).
    const clockSetBack = kept !== undefined && isAhead(kept, nowMs);
    if (clockSetBack) this.#dropWindow(clientName);
    const window = kept === undefined || clockSetBack ? this.#openWindow(clientName) : kept;
    const oldestKeptMs = nowMs - windowMs;
    window.requestTimesMs.dropThrough(oldestKeptMs);
    window.spends.dropThrough(oldestKeptMs, (spend) => {
      window.windowCredits -= spend.credits;
      leftWindow(spend);
    });
    // A window without spends holds none: no float remainder of the subtractions is left over.
    if (window.spends.size === 0) window.windowCredits = 0;
    return window;
  }

  #openWindow(clientName: string): ClientWindow {
    const window: ClientWindow = {
      requestTimesMs: new TimedQueue((atMs) => atMs),
      spends: new TimedQueue((spend) => spend.atMs),
      windowCredits: 0,
    };
    this.#windows.set(clientName, window);
    return window;
  }
}

function leftWindow(spend: { credits: number; running?: RunningSpend }): void {
  if (spend.running !== undefined) spend.running.inWindow -= spend.credits;
}

function isAhead(window: ClientWindow, nowMs: number): boolean {
  return (window.requestTimesMs.newestMs() ?? nowMs) > nowMs || (window.spends.newestMs() ?? nowMs) > nowMs;
}

function windowText(options: BurstGuardOptions): string {
  return `${Math.round(options.windowMs / 1000)} s`;
}

function pausedRefusal(pause: ClientPause, { runningCommand, word }: CommandHint): LocalRefusal {
  const resume =
    pause.clientName === ANONYMOUS_CLIENT
      ? 'in the Airlock window'
      : `in the Airlock window or with \`${runningCommand(`resume ${word(pause.clientName)}`)}\``;
  // 403, not 429: every client retries a 429, and a paused client stays paused until the user resumes it.
  return {
    status: 403,
    errorClass: 'client_paused',
    code: 'client_paused',
    message:
      `Airlock paused client '${pause.clientName}' to stop a possible runaway loop: ${pause.reason}. ` +
      `Nothing was sent to the gateway. Resume it ${resume}.`,
  };
}
