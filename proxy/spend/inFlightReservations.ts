import { scopeKey, type SpendScope } from './spendLedger.ts';

/** What a resend after runs the gateway may bill added to a hold (spendGate.ts admitResend). */
export interface ResentRuns {
  /** The hold as the resend counted it: a later count of the input (shrink) lowers it no further. */
  floorCredits: number;
  /** The input and per-call price of the step's runs, the resent one included: they stay on its scopes if the request moves on. */
  runsCredits: number;
}

interface Reservation {
  scopes: readonly SpendScope[];
  scopeKeys: string[];
  credits: number;
  resent: ResentRuns | null;
}

/** A hold as `take` hands it over, to be moved or put back. */
export interface TakenHold {
  scopes: readonly SpendScope[];
  credits: number;
  resent: ResentRuns | null;
}

/** Runs of a step a request left, held on that step's scopes (`keepLeftRuns`). */
export interface LeftRuns {
  readonly scopeKeys: readonly string[];
  readonly credits: number;
}

/** Where a request admitted without a cap is held, and what it may cost (null: nothing it states bounds it). */
export interface PricedLater {
  scopes: readonly SpendScope[];
  credits: number | null;
}

/**
 * Estimated credits of admitted requests that have not ended yet. Spend is only known when a
 * request ends, so without this fifty parallel requests from an agent would each be checked
 * against a total that none of the others has reached yet, and together overshoot a cap.
 *
 * `Later`: what a request admitted without a cap keeps to be priced by, should a cap ask (spendGate.ts keeps its check input).
 */
export class InFlightReservations<Later> {
  readonly #priceLater: (later: Later) => PricedLater;
  readonly #byRequest = new Map<string, Reservation>();
  /**
   * Runs the gateway may bill of steps a request has left (a fallback after resent 504s): held on
   * the left step's scopes until the request ends, since they were that profile's runs.
   */
  readonly #leftRuns = new Map<string, LeftRuns[]>();
  /** Credits held per scope, and by how many requests: the last release leaves exactly 0, not a float remainder. */
  readonly #byScope = new Map<string, { credits: number; requests: number }>();
  /**
   * Requests admitted while no cap applied to them, with how to price what they may cost: priced
   * only once a cap reads the holds (`settle`), so a user without caps pays no price lookup, yet a
   * cap set while they run counts them. Before, they held nothing, and requests admitted under the
   * new cap were checked as if none were running.
   */
  readonly #deferred = new Map<string, Later>();

  constructor(priceLater: (later: Later) => PricedLater) {
    this.#priceLater = priceLater;
  }

  /** A request admitted without a cap: `later` is kept as it is (nothing made for it), priced once a cap reads the holds. */
  reserveLater(requestId: string, later: Later): void {
    if (!this.#byRequest.has(requestId)) this.#deferred.set(requestId, later);
  }

  /** Prices the requests admitted without a cap and holds what they may cost, as an admission under one would have. */
  #settle(): void {
    if (this.#deferred.size === 0) return;
    for (const [requestId, later] of this.#deferred) this.#reserveLater(requestId, later);
    this.#deferred.clear();
  }

  #reserveLater(requestId: string, later: Later): void {
    const { scopes, credits } = this.#priceLater(later);
    this.reserve(requestId, scopes, credits ?? 0);
  }

  reserve(requestId: string, scopes: readonly SpendScope[], credits: number, resent: ResentRuns | null = null): void {
    if (credits <= 0 || this.#byRequest.has(requestId)) return;
    const scopeKeys = scopes.map(scopeKey);
    this.#byRequest.set(requestId, { scopes, scopeKeys, credits, resent });
    this.#addToScopes(scopeKeys, credits);
  }

  /**
   * Holds the runs of a step the request left on that step's scopes until the request ends; returns
   * them (null: nothing to hold) for `dropLeftRuns`, should the step they were kept for be refused.
   */
  keepLeftRuns(requestId: string, scopes: readonly SpendScope[], credits: number): LeftRuns | null {
    if (credits <= 0) return null;
    const runs: LeftRuns = { scopeKeys: scopes.map(scopeKey), credits };
    const left = this.#leftRuns.get(requestId);
    if (left === undefined) this.#leftRuns.set(requestId, [runs]);
    else left.push(runs);
    this.#addToScopes(runs.scopeKeys, credits);
    return runs;
  }

  /** Takes back runs `keepLeftRuns` held: the step was refused, and the hold they were part of goes back whole. */
  dropLeftRuns(requestId: string, runs: LeftRuns): void {
    const left = this.#leftRuns.get(requestId);
    const at = left?.indexOf(runs) ?? -1;
    if (left === undefined || at < 0) return;
    left.splice(at, 1);
    if (left.length === 0) this.#leftRuns.delete(requestId);
    this.#takeFromScopes(runs.scopeKeys, runs.credits, 1);
  }

  #addToScopes(scopeKeys: readonly string[], credits: number): void {
    for (const key of scopeKeys) {
      const held = this.#byScope.get(key) ?? { credits: 0, requests: 0 };
      this.#byScope.set(key, { credits: held.credits + credits, requests: held.requests + 1 });
    }
  }

  /**
   * Lowers a request's reservation to `credits` (a count replacing an upper bound); never raises it,
   * and never below what a resend counted (its runs before may be billed whatever the count says).
   */
  shrink(requestId: string, credits: number): void {
    const reservation = this.#byRequest.get(requestId);
    if (!reservation) return;
    const lowered = Math.max(credits, reservation.resent?.floorCredits ?? 0);
    if (lowered >= reservation.credits) return;
    const freed = reservation.credits - Math.max(lowered, 0);
    reservation.credits -= freed;
    this.#takeFromScopes(reservation.scopeKeys, freed, 0);
  }

  release(requestId: string): void {
    // Ended before any cap asked: never priced.
    if (!this.#deferred.delete(requestId)) this.take(requestId);
    if (this.#leftRuns.size === 0) return;
    const left = this.#leftRuns.get(requestId);
    if (left === undefined) return;
    this.#leftRuns.delete(requestId);
    for (const runs of left) this.#takeFromScopes(runs.scopeKeys, runs.credits, 1);
  }

  /** Releases a request's reservation and returns what it held, to move it elsewhere (a fallback step's profile). */
  take(requestId: string): TakenHold | null {
    const deferred = this.#deferred.get(requestId);
    if (deferred !== undefined) {
      this.#deferred.delete(requestId);
      // Moved by a fallback step whose profile has a cap: it goes with what it may cost.
      this.#reserveLater(requestId, deferred);
    }
    const reservation = this.#byRequest.get(requestId);
    if (!reservation) return null;
    this.#byRequest.delete(requestId);
    this.#takeFromScopes(reservation.scopeKeys, reservation.credits, 1);
    return { scopes: reservation.scopes, credits: reservation.credits, resent: reservation.resent };
  }

  #takeFromScopes(scopeKeys: readonly string[], credits: number, requests: number): void {
    for (const key of scopeKeys) {
      const held = this.#byScope.get(key);
      if (!held) continue;
      const left = { credits: Math.max(0, held.credits - credits), requests: held.requests - requests };
      if (left.requests > 0) this.#byScope.set(key, left);
      else this.#byScope.delete(key);
    }
  }

  /** Whether the request's reservation is held on `scope` (a fallback step may have moved it elsewhere). */
  heldOn(requestId: string, scope: SpendScope): boolean {
    return this.#byRequest.get(requestId)?.scopeKeys.includes(scopeKey(scope)) ?? false;
  }

  reservedCredits(scope: SpendScope): number {
    this.#settle();
    return this.#byScope.get(scopeKey(scope))?.credits ?? 0;
  }

  get requestCount(): number {
    this.#settle();
    let onlyLeftRuns = 0;
    for (const requestId of this.#leftRuns.keys()) if (!this.#byRequest.has(requestId)) onlyLeftRuns += 1;
    return this.#byRequest.size + onlyLeftRuns;
  }
}
