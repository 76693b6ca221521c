import type { UpstreamErrorClass } from '../contracts/errors.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import { isSideEffectCreationPath } from '../core/clientPath.ts';

/**
 * Whether a failed request moves on to the next step of its profile's fallback list (issue 22).
 * Asked only after the current target's own retries (retryPolicy.ts) are over or refused, so a
 * 429 whose Retry-After is longer than the profile waits for (`maxRetryAfterMs`), or any failure
 * of a client that retries by itself, moves on at once instead of waiting.
 */

/** How the last step failed, as the attempts saw it. */
export type FailedStep =
  | { kind: 'status'; status: number; errorClass: UpstreamErrorClass }
  /** `mayHaveRun`: some attempt of this step may have run at the gateway (upstreamExecution.ts). */
  | { kind: 'network'; errorClass: UpstreamErrorClass; mayHaveRun: boolean }
  | UnsentStep;

/**
 * Nothing was sent: Airlock held the request's own profile at admission. Decided like the gateway
 * status it stands for; the refusal is the answer when no fallback step takes the request.
 */
export interface UnsentStep {
  kind: 'unsent';
  status: number;
  errorClass: UpstreamErrorClass;
  refusal: LocalRefusal;
}

/**
 * Whether a held profile's refusal may go on to the profile's fallback list, as the step it stands
 * for; null when the refusal is the answer. Every key of a pool cooling after 429s is the profile
 * rate limited, like the pool's last 429 during a request (exchange.ts). Every key rejected
 * (circuit_open) is a key problem, which is final like the gateway's own rejection.
 */
export function unsentStep(refusal: LocalRefusal): UnsentStep | null {
  if (refusal.errorClass === 'keys_cooling') return { kind: 'unsent', status: 429, errorClass: 'rate_limited', refusal };
  return null;
}

export interface FallbackInput {
  failure: FailedStep;
  method: string;
  upstreamPath: string;
  hasIdempotencyKey: boolean;
  /** Some attempt of any step may have run at the gateway. */
  upstreamMayHaveRun: boolean;
  /** Part of an answer already went to the client: it has one answer, and it is that one. */
  bytesSentToClient: boolean;
}

export type FallbackDecision = { fallBack: true } | { fallBack: false; reason: string };

/**
 * Final answers are the user's to fix, not another model's: an empty balance, a model the key may
 * not use, a rejected key or a bad request would fail the same way (or hide a problem) elsewhere.
 */
const FINAL_CLASSES = new Set<UpstreamErrorClass>(['quota_exhausted', 'model_not_found', 'auth', 'bad_request', 'html_instead_of_json']);
/**
 * A gateway that did not answer in time or could not be reached. The total timeout is the client's
 * whole wait, so nothing is left for another step; a reset after the request was written may have
 * run and charged it, so only a request that certainly did not run moves on (`network`).
 */
const UNREACHED_CLASSES = new Set<UpstreamErrorClass>(['timeout_connect', 'timeout_idle', 'network']);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** Decides whether to try the next fallback; the caller then checks that step's profile, plan and budget. */
export function decideFallback(input: FallbackInput): FallbackDecision {
  const { failure } = input;
  if (input.bytesSentToClient) return refuse('part of the answer already reached the client');
  const idempotent = IDEMPOTENT_METHODS.has(input.method.toUpperCase());
  if (!idempotent && isSideEffectCreationPath(input.upstreamPath)) {
    if (!input.hasIdempotencyKey) return refuse('an image or video creation falls back only with an idempotency key');
    // Another gateway does not know the key: a task the first may have created would be created twice.
    if (input.upstreamMayHaveRun) return refuse('the creation may already be running at the gateway');
  }
  if (FINAL_CLASSES.has(failure.errorClass)) return refuse(`${failure.errorClass} is final: another model would not fix it`);
  if (failure.kind === 'status' || failure.kind === 'unsent') {
    // 429 rate limit, and any 5xx: 500/502/503/504, Anthropic's 529 overloaded, Cloudflare's 52x.
    if (failure.status === 429 || failure.status >= 500) return { fallBack: true };
    return refuse(`status ${failure.status} does not fall back`);
  }
  if (!UNREACHED_CLASSES.has(failure.errorClass)) return refuse(`${failure.errorClass} does not fall back`);
  // As for retries: the idle timeout before the first byte is the gateway not answering, like its 504.
  if (failure.errorClass === 'network' && failure.mayHaveRun && !idempotent && !input.hasIdempotencyKey) {
    return refuse('the request reached the gateway, which may have run and charged it');
  }
  return { fallBack: true };
}

function refuse(reason: string): FallbackDecision {
  return { fallBack: false, reason };
}
