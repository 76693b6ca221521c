import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamErrorClass } from '../contracts/errors.ts';
import type { RetryPolicy } from '../contracts/profile.ts';
import { isSideEffectCreationPath } from '../core/clientPath.ts';
import { PROXY_REFUSED_CODE } from '../core/errorExplanations.ts';
import { isUnknownIssuerCode } from '../core/osCaStore.ts';
import { headerValue } from './headers.ts';
import { gaveUpWaiting } from './upstreamExecution.ts';

/**
 * What a gateway's error answer says of retrying it, read as the OpenAI and Anthropic SDKs read it
 * (client.js shouldRetry, retryRequest), so Airlock and the client act on the same words.
 */
export interface RetryAdvice {
  /** Retry-After as sent: delay-seconds or an HTTP date. */
  retryAfter: string | null;
  /** `retry-after-ms` (Azure OpenAI states its wait so), read before Retry-After. */
  retryAfterMs?: string | null;
  /**
   * `x-should-retry: false`: a gateway that is itself a proxy and already retried says a retry
   * will not help (Free Claude Code does, earendil-works/pi #6586). Its `true` adds no retry.
   */
  refusesRetry?: boolean;
}

export function retryAdviceOf(headers: IncomingHttpHeaders): Required<RetryAdvice> {
  return {
    retryAfter: headerValue(headers, 'retry-after'),
    retryAfterMs: headerValue(headers, 'retry-after-ms'),
    refusesRetry: headerValue(headers, 'x-should-retry')?.trim().toLowerCase() === 'false',
  };
}

export type AttemptOutcome =
  /** `errorClass`: the answer's class; a final one (an empty balance, a missing model) is never retried whatever its status. */
  | ({ kind: 'status'; status: number; errorClass?: UpstreamErrorClass } & RetryAdvice)
  /** `mayHaveExecuted`: as upstreamExecution.ts decides it for this attempt; `code`: the failure's (networkFailureCode). */
  | { kind: 'network'; errorClass: UpstreamErrorClass; mayHaveExecuted: boolean; code?: string | null };

export interface RetryInput {
  /** Retries already made for this request (0 after the first attempt). */
  retriesSoFar: number;
  method: string;
  upstreamPath: string;
  outcome: AttemptOutcome;
  bytesSentToClient: boolean;
  hasIdempotencyKey: boolean;
  /** The client retries failures by itself (clientRetries.ts): Airlock's retries would multiply its own. */
  clientRetries: boolean;
  policy: RetryPolicy;
  /** In [0, 1), for jitter; injected so tests are deterministic. */
  random: () => number;
  /** The clock for Retry-After as an HTTP date. */
  nowMs: number;
  /** Time left before the total timeout; absent, none applies. */
  msLeft?: number;
}

/** `mayHaveRun`: refused only because a resend could run and bill the request a second time. */
export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: string; mayHaveRun?: true };

/** docs/gateway-spec.md §7 rule 1: "some 5xx" are 502/503/504; 500 usually means the request itself broke the model. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
/** An OpenAI 429 `insufficient_quota` or a new-api 503 "No available channel for model": no wait fixes them. */
const FINAL_CLASSES = new Set<UpstreamErrorClass>(['quota_exhausted', 'model_not_found']);
/** Network outcomes a short break can explain; a spent total budget or a refusal is not one. */
const RETRYABLE_NETWORK_CLASSES = new Set<UpstreamErrorClass>(['network', 'timeout_connect', 'timeout_idle', 'stream_interrupted']);
/** RFC 9110 section 9.2.2: sending these twice has the effect of sending them once. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
const BACKOFF_MS = [1000, 2000, 4000];
const MAX_JITTER_RATIO = 0.25;

/** Whether to try the same request again, and after how long (docs/gateway-spec.md §7 rules 1-3). */
export function decideRetry(input: RetryInput): RetryDecision {
  const { outcome, policy } = input;
  if (input.bytesSentToClient) return refuse('part of the answer already reached the client');
  if (input.clientRetries) return refuse('the client retries by itself; the answer goes to it at once');

  if (outcome.kind === 'status' && outcome.errorClass !== undefined && FINAL_CLASSES.has(outcome.errorClass)) {
    return refuse(`${outcome.errorClass} is final`);
  }
  if (outcome.kind === 'status' && outcome.refusesRetry === true) return refuse('the gateway said x-should-retry: false');
  if (outcome.kind === 'status' && !RETRYABLE_STATUSES.has(outcome.status)) {
    return refuse(`status ${outcome.status} is not retried`);
  }
  if (outcome.kind === 'network' && !RETRYABLE_NETWORK_CLASSES.has(outcome.errorClass)) {
    return refuse(`${outcome.errorClass} is not retried`);
  }
  if (outcome.kind === 'network' && outcome.code === PROXY_REFUSED_CODE) {
    return refuse(
      'the HTTP proxy refused to connect Airlock to the gateway (its credentials or its rules); a resend meets the same answer',
    );
  }
  // The OS store was tried too by then (core/osCaStore.ts): only a CA installed on this computer fixes it.
  if (outcome.kind === 'network' && isUnknownIssuerCode(outcome.code)) {
    return refuse(`no trusted certificate authority vouches for the gateway's certificate (${outcome.code}); waiting does not change that`);
  }

  const idempotent = IDEMPOTENT_METHODS.has(input.method.toUpperCase()) || input.hasIdempotencyKey;
  if (!idempotent && isSideEffectCreationPath(input.upstreamPath)) {
    return refuse(
      'a paid job (an image, video, batch or fine-tune) may already be running upstream; send an idempotency key to allow retries',
    );
  }

  const maxRetries = Math.min(policy.maxRetries, BACKOFF_MS.length);
  if (input.retriesSoFar >= maxRetries) return refuse(`gave up after ${input.retriesSoFar} retries (limit ${maxRetries})`);
  // One resend rule (rule 3): a gateway that gave up waiting (504, 524) and Airlock's own idle
  // timeout both leave a model that had the request and may have run and billed it (unstatedRuns.ts
  // counts it so); a 502 or 503 ran nothing and is resent. Checked after the policy's limit, so
  // the row notes it only where the policy would have resent.
  if (!idempotent && (outcome.kind === 'network' ? outcome.mayHaveExecuted : gaveUpWaiting(outcome.status))) {
    return {
      retry: false,
      reason: 'the gateway had the request and may have run and billed it, so it is not sent twice',
      mayHaveRun: true,
    };
  }

  const backoffMs = BACKOFF_MS[input.retriesSoFar]!;
  const delayMs = Math.round(backoffMs * (1 + MAX_JITTER_RATIO * input.random()));
  const retryAfterMs = outcome.kind === 'status' ? advisedWaitMs(outcome, input.nowMs) : null;
  if (retryAfterMs !== null && retryAfterMs > policy.maxRetryAfterMs) {
    return refuse(
      `the gateway asked to wait ${retryAfterMs} ms, more than maxRetryAfterMs (${policy.maxRetryAfterMs} ms); the client decides`,
    );
  }
  const waitMs = retryAfterMs === null ? delayMs : Math.max(delayMs, retryAfterMs);
  // Waited out, the total timeout would answer instead of the gateway, and no fallback could follow.
  if (input.msLeft !== undefined && waitMs >= input.msLeft) return refuse(`the wait (${waitMs} ms) would outlast the total timeout`);
  return { retry: true, delayMs: waitMs };
}

/** How long the gateway asked to wait: `retry-after-ms` first, as the SDKs read it, else Retry-After; null when it did not say. */
export function advisedWaitMs(advice: RetryAdvice, nowMs: number): number | null {
  const millis = advice.retryAfterMs?.trim();
  if (millis !== undefined && /^\d+(\.\d+)?$/.test(millis)) return Math.round(Number(millis));
  return parseRetryAfterMs(advice.retryAfter, nowMs);
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 section 10.2.3); anything else is ignored. */
export function parseRetryAfterMs(retryAfter: string | null, nowMs: number): number | null {
  if (retryAfter === null) return null;
  const value = retryAfter.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  if (!/[a-z]/i.test(value)) return null;
  const dateMs = Date.parse(value);
  return Number.isNaN(dateMs) ? null : Math.max(0, dateMs - nowMs);
}

function refuse(reason: string): RetryDecision {
  return { retry: false, reason };
}
