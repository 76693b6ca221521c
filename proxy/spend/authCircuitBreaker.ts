import type { LocalRefusal } from '../contracts/ports.ts';
import { CLI_COMMAND } from '../contracts/cli.ts';

/**
 * After the gateway rejects a profile's key (401/403), requests on that profile are refused
 * locally for a cooldown, so a client retrying a bad key does not hammer the gateway. Then one
 * probe is let through (half-open): an auth failure reopens with a doubled cooldown, anything
 * else closes the breaker. Setting a new key resets it.
 */
export interface AuthCircuitBreakerOptions {
  initialCooldownMs: number;
  maxCooldownMs: number;
}

export const DEFAULT_AUTH_BREAKER_OPTIONS: AuthCircuitBreakerOptions = { initialCooldownMs: 30_000, maxCooldownMs: 300_000 };

export type BreakerState =
  | { state: 'closed' }
  | { state: 'open'; untilMs: number; cooldownMs: number; rejectedStatus: number }
  | { state: 'half-open'; probeStartedAtMs: number; cooldownMs: number; rejectedStatus: number };

const CLOSED: BreakerState = { state: 'closed' };

export function isAuthRejection(status: number): boolean {
  return status === 401 || status === 403;
}

export class AuthCircuitBreaker {
  readonly #options: AuthCircuitBreakerOptions;
  readonly #profiles = new Map<string, BreakerState>();

  constructor(options: Partial<AuthCircuitBreakerOptions> = {}) {
    this.#options = { ...DEFAULT_AUTH_BREAKER_OPTIONS, ...options };
  }

  stateOf(profileId: string): BreakerState {
    return this.#profiles.get(profileId) ?? CLOSED;
  }

  /** Lets a request through or refuses it; granting the half-open probe is a state change. */
  admit(profileId: string, nowMs: number): LocalRefusal | null {
    const current = this.stateOf(profileId);
    if (current.state === 'closed') return null;
    if (current.state === 'open') {
      if (nowMs < current.untilMs) return openRefusal(profileId, current.rejectedStatus, current.untilMs - nowMs);
      this.#profiles.set(profileId, { ...halfOpenFrom(current), probeStartedAtMs: nowMs });
      return null;
    }
    // A probe whose outcome never came back (client went away first) must not block forever.
    if (nowMs - current.probeStartedAtMs >= current.cooldownMs) {
      this.#profiles.set(profileId, { ...current, probeStartedAtMs: nowMs });
      return null;
    }
    return openRefusal(profileId, current.rejectedStatus, current.probeStartedAtMs + current.cooldownMs - nowMs);
  }

  recordUpstreamOutcome(outcome: { profileId: string; status: number; atMs: number }): void {
    const current = this.stateOf(outcome.profileId);
    if (!isAuthRejection(outcome.status)) {
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
  return { state: 'half-open', cooldownMs: open.cooldownMs, rejectedStatus: open.rejectedStatus };
}

function openRefusal(profileId: string, rejectedStatus: number, remainingMs: number): LocalRefusal {
  const retryAfterSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return {
    status: 401,
    errorClass: 'circuit_open',
    code: 'circuit_open',
    message:
      `The gateway rejected the key of profile '${profileId}' (HTTP ${rejectedStatus}), so Airlock is not sending requests with it ` +
      `for ${retryAfterSeconds} s. Set a new key with \`${CLI_COMMAND} key set ${profileId}\` (or on the Profiles screen).`,
    headers: { 'retry-after': String(retryAfterSeconds) },
  };
}
