import { hash } from 'node:crypto';
import type { LocalRefusal } from '../contracts/ports.ts';
import { PLAIN_HINT, type NamedCommand } from '../contracts/cli.ts';

/**
 * After the gateway rejects a profile's key (a 401, or an invalid-key code: class `auth`), requests
 * on that profile are refused locally for a cooldown, so a client retrying a bad key does not
 * hammer the gateway. Then one probe is let through (half-open): a rejected key reopens with a
 * doubled cooldown, anything else closes the breaker. Setting a new key resets it, wherever it was
 * set: the breaker keeps a fingerprint of the key that was rejected and lets a request with another
 * key through at once (a key set by the CLI in another process, and a request still running on the
 * old key whose 401 arrives after the new key was set, stop nothing). A model not
 * open to the key or an empty balance (a 403 from many relays) says nothing of the key and never
 * opens it. A profile with a key pool has one breaker per key instead (spend/keyPool.ts keys this
 * class by profile and key), so one revoked key never stops the profile while others work.
 */
export interface AuthCircuitBreakerOptions {
  initialCooldownMs: number;
  maxCooldownMs: number;
}

export const DEFAULT_AUTH_BREAKER_OPTIONS: AuthCircuitBreakerOptions = { initialCooldownMs: 30_000, maxCooldownMs: 300_000 };

/** Which key the gateway rejected: a hash, so the breaker never holds a key; null when the caller did not say. */
type RejectedKey = string | null;

export type BreakerState =
  | { state: 'closed' }
  | { state: 'open'; untilMs: number; cooldownMs: number; rejectedStatus: number; rejectedKey: RejectedKey }
  | { state: 'half-open'; probeStartedAtMs: number; cooldownMs: number; rejectedStatus: number; rejectedKey: RejectedKey };

const CLOSED: BreakerState = { state: 'closed' };

export class AuthCircuitBreaker {
  readonly #options: AuthCircuitBreakerOptions;
  readonly #profiles = new Map<string, BreakerState>();

  constructor(options: Partial<AuthCircuitBreakerOptions> = {}) {
    this.#options = { ...DEFAULT_AUTH_BREAKER_OPTIONS, ...options };
  }

  stateOf(profileId: string): BreakerState {
    return this.#profiles.get(profileId) ?? CLOSED;
  }

  /**
   * The state at `nowMs`, a wait the wall clock was set back into cut to one cooldown from now:
   * set back a day (NTP, a wrong clock fixed at resume), a 30 s rest must not refuse for a day.
   */
  stateAt(profileId: string, nowMs: number, apiKey?: string): BreakerState {
    const state = this.stateOf(profileId);
    if (state.state !== 'closed' && isAnotherKey(state.rejectedKey, apiKey)) {
      // The key was replaced since the gateway rejected it: that rejection says nothing of this one.
      this.#profiles.delete(profileId);
      return CLOSED;
    }
    let stepped: BreakerState | null = null;
    if (state.state === 'open' && state.untilMs - nowMs > state.cooldownMs) stepped = { ...state, untilMs: nowMs + state.cooldownMs };
    if (state.state === 'half-open' && state.probeStartedAtMs > nowMs) stepped = { ...state, probeStartedAtMs: nowMs };
    if (stepped === null) return state;
    this.#profiles.set(profileId, stepped);
    return stepped;
  }

  /** Lets a request with `apiKey` through or refuses it; granting the half-open probe is a state change. */
  admit(
    profileId: string,
    nowMs: number,
    keyFix: KeyFix = { profileName: profileId, keyFromEnvironment: false, command: PLAIN_HINT.command },
    apiKey?: string,
  ): LocalRefusal | null {
    const current = this.stateAt(profileId, nowMs, apiKey);
    if (current.state === 'closed') return null;
    if (current.state === 'open') {
      if (nowMs < current.untilMs) return openRefusal(profileId, current.rejectedStatus, keyFix);
      this.#profiles.set(profileId, { ...halfOpenFrom(current), probeStartedAtMs: nowMs });
      return null;
    }
    // A probe whose outcome never came back (client went away first) must not block forever.
    if (nowMs - current.probeStartedAtMs >= current.cooldownMs) {
      this.#profiles.set(profileId, { ...current, probeStartedAtMs: nowMs });
      return null;
    }
    return openRefusal(profileId, current.rejectedStatus, keyFix);
  }

  /** `apiKey` is the key the request was sent with: a rejection opens the breaker for that key only. */
  recordUpstreamOutcome(outcome: { profileId: string; status: number; keyRejected: boolean; atMs: number; apiKey?: string }): void {
    const held = this.stateOf(outcome.profileId);
    // A state about another key (the one before a key change) is not this key's history.
    const current = held.state !== 'closed' && isAnotherKey(held.rejectedKey, outcome.apiKey) ? CLOSED : held;
    if (!outcome.keyRejected) {
      if (current.state === 'half-open') this.#profiles.delete(outcome.profileId);
      return;
    }
    // Requests already in flight when it opened report their 401s too: only a failed probe doubles.
    if (current.state === 'open') return;
    const cooldownMs =
      current.state === 'closed' ? this.#options.initialCooldownMs : Math.min(current.cooldownMs * 2, this.#options.maxCooldownMs);
    this.#profiles.set(outcome.profileId, {
      state: 'open',
      untilMs: outcome.atMs + cooldownMs,
      cooldownMs,
      rejectedStatus: outcome.status,
      rejectedKey: outcome.apiKey === undefined ? null : fingerprintOf(outcome.apiKey),
    });
  }

  /** A new key was set for the profile: the old rejection says nothing about it. */
  reset(profileId: string): void {
    this.#profiles.delete(profileId);
  }
}

function halfOpenFrom(
  open: Extract<BreakerState, { state: 'open' }>,
): Omit<Extract<BreakerState, { state: 'half-open' }>, 'probeStartedAtMs'> {
  return { state: 'half-open', cooldownMs: open.cooldownMs, rejectedStatus: open.rejectedStatus, rejectedKey: open.rejectedKey };
}

function fingerprintOf(apiKey: string): string {
  return hash('sha256', apiKey, 'base64url');
}

/** Hashed only while the breaker is not closed, so a request on a working key pays nothing for it. */
function isAnotherKey(rejectedKey: RejectedKey, apiKey: string | undefined): boolean {
  return rejectedKey !== null && apiKey !== undefined && fingerprintOf(apiKey) !== rejectedKey;
}

/** How the key of the refused profile is fixed: a `--base-url` run's key is AIRLOCK_API_KEY, not a stored one. */
export interface KeyFix {
  profileName: string;
  keyFromEnvironment: boolean;
  /** How this Airlock names the command that sets a key (its --data-dir). */
  command: NamedCommand;
}

/**
 * Answered at once with a status no client retries (403; Codex and Claude Code retry 401 and
 * wait out a Retry-After, 96-102 s before they showed anything) and no Retry-After: waiting does
 * not fix a key. The fix fits how Airlock was run.
 */
function openRefusal(profileId: string, rejectedStatus: number, keyFix: KeyFix): LocalRefusal {
  const fix = keyFix.keyFromEnvironment
    ? `This run takes its key from AIRLOCK_API_KEY: stop Airlock, set AIRLOCK_API_KEY to a key the gateway accepts, and start it again.`
    : `Set a new key with \`${keyFix.command(`key set ${profileId}`)}\` or on the Profiles screen of the Airlock window; requests go through again at once.`;
  return {
    status: 403,
    errorClass: 'circuit_open',
    code: 'circuit_open',
    message:
      `The gateway rejected the key of profile "${keyFix.profileName}" (${profileId}) with HTTP ${rejectedStatus}, so Airlock is not sending ` +
      `requests with it. ${fix}`,
    headers: { 'x-should-retry': 'false' },
  };
}
