import { PLAIN_HINT, type NamedCommand } from '../contracts/cli.ts';
import type { PoolKeyState } from '../contracts/keyPool.ts';
import type { KeyLease, LocalRefusal, PooledKeyUse } from '../contracts/ports.ts';
import { AuthCircuitBreaker, type AuthCircuitBreakerOptions, type BreakerState } from './authCircuitBreaker.ts';

/**
 * Key pools: a profile's keys used in turn (round-robin over requests), a key the gateway
 * rate-limited (429) skipped until its Retry-After has passed, and a key it rejected (401/403)
 * skipped by an auth breaker of its own (authCircuitBreaker.ts, per key instead of per profile:
 * one bad key must not stop its pool). Within one request each key is tried at most once.
 */

/** One key's standing as selection sees it. */
export interface KeyHealth {
  /** Skipped while nowMs is before this (a 429's Retry-After); 0 when never limited. */
  coolingUntilMs: number;
  /** Rejected by the gateway: skipped while nowMs is before this; null when not rejected. */
  rejectedUntilMs: number | null;
}

export interface SelectionInput {
  keys: readonly KeyHealth[];
  /** Where round-robin goes on from: the index after the key the previous request got. */
  startIndex: number;
  nowMs: number;
  /** Indexes this request already tried: never twice in one request. */
  tried: ReadonlySet<number>;
}

export type Selection =
  | { kind: 'key'; index: number }
  | {
      kind: 'none';
      coolingKeys: number;
      rejectedKeys: number;
      /** When the first rate-limited key may be used again; null when none is only rate-limited. */
      earliestFreeAtMs: number | null;
      /** Index of that key, for the message. */
      earliestFreeIndex: number | null;
    };

/** Pure: the next usable key in turn from startIndex, or why there is none. */
export function selectKey(input: SelectionInput): Selection {
  const { keys, nowMs, tried } = input;
  const count = keys.length;
  for (let step = 0; step < count; step += 1) {
    const index = (((input.startIndex + step) % count) + count) % count;
    const key = keys[index];
    if (key === undefined || tried.has(index)) continue;
    if (key.coolingUntilMs > nowMs) continue;
    if (key.rejectedUntilMs !== null && key.rejectedUntilMs > nowMs) continue;
    return { kind: 'key', index };
  }
  let coolingKeys = 0;
  let rejectedKeys = 0;
  let earliestFreeAtMs: number | null = null;
  let earliestFreeIndex: number | null = null;
  keys.forEach((key, index) => {
    if (key.rejectedUntilMs !== null && key.rejectedUntilMs > nowMs) {
      rejectedKeys += 1;
      return;
    }
    if (key.coolingUntilMs <= nowMs) return;
    coolingKeys += 1;
    if (earliestFreeAtMs === null || key.coolingUntilMs < earliestFreeAtMs) {
      earliestFreeAtMs = key.coolingUntilMs;
      earliestFreeIndex = index;
    }
  });
  return { kind: 'none', coolingKeys, rejectedKeys, earliestFreeAtMs, earliestFreeIndex };
}

/** Until when a rejected key is skipped, from its breaker: an open breaker until its cooldown ends, a running probe until it is stale. */
export function rejectedUntil(state: BreakerState): number | null {
  if (state.state === 'closed') return null;
  if (state.state === 'open') return state.untilMs;
  return state.probeStartedAtMs + state.cooldownMs;
}

/** A pool key with its secret, as the key cache holds it. */
export interface PoolKeyWithSecret {
  id: string;
  label: string;
  apiKey: string;
}

export interface PoolProfile {
  id: string;
  name: string;
}

/** What happened to an attempt made with the lease's current key. */
export type KeyAttemptOutcome =
  | { kind: 'rate_limited'; cooldownMs: number }
  | { kind: 'rejected'; status: number }
  /** The gateway answered otherwise: a rejected key's probe passed. */
  | { kind: 'answered' };

/** The runtime state of every pool: cursors, cooldowns and the per-key auth breakers. In memory only. */
export class KeyPools {
  readonly #cursors = new Map<string, number>();
  /** A rate-limited key's rest: until when, and how long it was set for (a clock set back cuts it to that from now). */
  readonly #cooling = new Map<string, { untilMs: number; cooldownMs: number }>();
  readonly #breaker: AuthCircuitBreaker;
  /** How the refusals name this Airlock in the key commands they suggest (its --data-dir). */
  readonly command: NamedCommand;

  constructor(breakerOptions: Partial<AuthCircuitBreakerOptions> = {}, command: NamedCommand = PLAIN_HINT.command) {
    this.#breaker = new AuthCircuitBreaker(breakerOptions);
    this.command = command;
  }

  /**
   * A key for a new request, in turn, or the refusal that says why none can be used now. `keysNow`: the
   * pool's keys as the keychain holds them at the time of asking, so a lease never moves on to a key
   * removed or replaced since it was taken.
   */
  lease(
    profile: PoolProfile,
    keys: readonly PoolKeyWithSecret[],
    nowMs: number,
    keysNow?: () => readonly PoolKeyWithSecret[],
  ): KeyLease | LocalRefusal {
    const lease = new PoolLease(this, profile, keys, keysNow);
    const first = lease.next(nowMs);
    return 'errorClass' in first ? first : lease;
  }

  /** For the window and the CLI: how each key stands now. */
  stateOf(profileId: string, keyId: string, nowMs: number): PoolKeyState {
    const ref = keyRef(profileId, keyId);
    const breaker = this.#breaker.stateAt(ref, nowMs);
    const rejectedAt = rejectedUntil(breaker);
    if (breaker.state !== 'closed' && rejectedAt !== null) {
      return { state: 'rejected', status: breaker.rejectedStatus, retryAtMs: rejectedAt };
    }
    const coolingUntilMs = this.#coolingUntilMs(ref, nowMs);
    return coolingUntilMs > nowMs ? { state: 'cooling', untilMs: coolingUntilMs } : { state: 'ready' };
  }

  /** A new secret for the key: what the gateway said of the old one no longer holds. */
  resetKey(profileId: string, keyId: string): void {
    const ref = keyRef(profileId, keyId);
    this.#breaker.reset(ref);
    this.#cooling.delete(ref);
  }

  /** @internal for PoolLease */
  health(profileId: string, keys: readonly PoolKeyWithSecret[], nowMs: number): KeyHealth[] {
    return keys.map((key) => {
      const ref = keyRef(profileId, key.id);
      // With the key's secret: a secret replaced since its rejection (from the CLI too) is ready at once.
      const breaker = this.#breaker.stateAt(ref, nowMs, key.apiKey);
      return { coolingUntilMs: this.#coolingUntilMs(ref, nowMs), rejectedUntilMs: rejectedUntil(breaker) };
    });
  }

  /** Until when the key rests; a rest the clock was set back into is cut, once, to its length from now. */
  #coolingUntilMs(ref: string, nowMs: number): number {
    const cooling = this.#cooling.get(ref);
    if (cooling === undefined) return 0;
    if (cooling.untilMs - nowMs > cooling.cooldownMs) cooling.untilMs = nowMs + cooling.cooldownMs;
    return cooling.untilMs;
  }

  /** @internal for PoolLease */
  cursor(profileId: string): number {
    return this.#cursors.get(profileId) ?? 0;
  }

  /** @internal for PoolLease: the key is taken; a rejected key past its cooldown becomes the breaker's probe. */
  take(profileId: string, keys: readonly PoolKeyWithSecret[], index: number, nowMs: number): void {
    this.#cursors.set(profileId, (index + 1) % keys.length);
    const key = keys[index];
    if (key !== undefined) this.#breaker.admit(keyRef(profileId, key.id), nowMs, undefined, key.apiKey);
  }

  /** @internal for PoolLease */
  record(profileId: string, key: PooledKeyUse, outcome: KeyAttemptOutcome, atMs: number): void {
    const ref = keyRef(profileId, key.keyId);
    if (outcome.kind === 'rate_limited') {
      const untilMs = atMs + outcome.cooldownMs;
      if (untilMs > this.#coolingUntilMs(ref, atMs)) this.#cooling.set(ref, { untilMs, cooldownMs: outcome.cooldownMs });
      // A 429 says the key itself is accepted: a probe of a rejected key passed.
      this.#breaker.recordUpstreamOutcome({ profileId: ref, status: 429, keyRejected: false, atMs, apiKey: key.apiKey });
      return;
    }
    this.#breaker.recordUpstreamOutcome({
      profileId: ref,
      status: outcome.kind === 'rejected' ? outcome.status : 200,
      keyRejected: outcome.kind === 'rejected',
      atMs,
      apiKey: key.apiKey,
    });
  }
}

/** One request's use of a pool: the key it has now, and the next one after a 429 or a rejection. */
class PoolLease implements KeyLease {
  readonly #pools: KeyPools;
  readonly #profile: PoolProfile;
  readonly #keys: readonly PoolKeyWithSecret[];
  readonly #tried = new Set<number>();
  readonly #keysNow: (() => readonly PoolKeyWithSecret[]) | undefined;
  #current: PooledKeyUse | null = null;

  constructor(pools: KeyPools, profile: PoolProfile, keys: readonly PoolKeyWithSecret[], keysNow?: () => readonly PoolKeyWithSecret[]) {
    this.#pools = pools;
    this.#profile = profile;
    this.#keys = keys;
    this.#keysNow = keysNow;
  }

  get current(): PooledKeyUse {
    if (this.#current === null) throw new Error('no key leased yet');
    return this.#current;
  }

  get secrets(): readonly string[] {
    return this.#keys.map((key) => key.apiKey);
  }

  record(outcome: KeyAttemptOutcome, atMs: number): void {
    // A 429 for a secret replaced or removed while its attempt ran says nothing of the key's new secret (a secret is
    // often replaced for its 429s), and would bench it for the old one's Retry-After. Asked on a 429 only: a
    // rejection is kept with its secret's fingerprint already, and an answer is every request's outcome.
    if (outcome.kind === 'rate_limited' && !this.holdsCurrent()) return;
    this.#pools.record(this.#profile.id, this.current, outcome, atMs);
  }

  holdsCurrent(): boolean {
    const now = this.#keysNow?.();
    return now === undefined || holds(now, this.current.keyId, this.current.apiKey);
  }

  next(nowMs: number): PooledKeyUse | LocalRefusal {
    const profileId = this.#profile.id;
    // The window or the CLI may have removed or replaced keys since the lease was taken (its first key is taken at once).
    // A key taken away is never sent again; a new secret waits for the next request, whose answer is masked with it.
    const now = this.#current === null ? undefined : this.#keysNow?.();
    if (now !== undefined) {
      for (const [index, key] of this.#keys.entries()) if (!holds(now, key.id, key.apiKey)) this.#tried.add(index);
    }
    const selection = selectKey({
      keys: this.#pools.health(profileId, this.#keys, nowMs),
      startIndex: this.#pools.cursor(profileId),
      nowMs,
      tried: this.#tried,
    });
    if (selection.kind === 'none') return this.#refusal(selection, nowMs);
    this.#pools.take(profileId, this.#keys, selection.index, nowMs);
    this.#tried.add(selection.index);
    const key = this.#keys[selection.index] as PoolKeyWithSecret;
    this.#current = { keyId: key.id, label: key.label, apiKey: key.apiKey };
    return this.#current;
  }

  #refusal(selection: Extract<Selection, { kind: 'none' }>, nowMs: number): LocalRefusal {
    const profile = `profile "${this.#profile.name}" (${this.#profile.id})`;
    const total = this.#keys.length;
    const { command } = this.#pools;
    const addKey = `\`${command(`key add ${this.#profile.id}`)}\``;
    if (selection.earliestFreeAtMs !== null && selection.earliestFreeIndex !== null) {
      const waitS = Math.max(1, Math.ceil((selection.earliestFreeAtMs - nowMs) / 1000));
      const first = this.#keys[selection.earliestFreeIndex]?.label ?? '';
      const rejected = selection.rejectedKeys > 0 ? ` (${selection.rejectedKeys} of them rejected by the gateway)` : '';
      return {
        status: 429,
        errorClass: 'keys_cooling',
        code: 'keys_cooling',
        message:
          `Every key of ${profile} is rate limited by the gateway or unusable${rejected}: ${selection.coolingKeys} of ${total} wait out the gateway's Retry-After, ` +
          `and the first, "${first}", can be used again in ${waitS} s. Retry after ${waitS} s, or add a key to the pool with ${addKey} or on the Profiles screen of the Airlock window.`,
        headers: { 'retry-after': String(waitS) },
      };
    }
    return {
      status: 403,
      errorClass: 'circuit_open',
      code: 'circuit_open',
      message:
        `The gateway rejected every usable key of ${profile} (${selection.rejectedKeys} of ${total} rejected), so Airlock is not sending requests with them. ` +
        `Replace a key with \`${command(`key set ${this.#profile.id} --key <id>`)}\` (ids: \`${command(`key list ${this.#profile.id}`)}\`), add one with ${addKey}, or use the Profiles screen of the Airlock window; requests go through again at once.`,
      headers: { 'x-should-retry': 'false' },
    };
  }
}

function holds(keys: readonly PoolKeyWithSecret[], keyId: string, apiKey: string): boolean {
  return keys.some((key) => key.id === keyId && key.apiKey === apiKey);
}

function keyRef(profileId: string, keyId: string): string {
  return `${profileId}\n${keyId}`;
}
