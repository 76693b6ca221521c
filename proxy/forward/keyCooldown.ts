import type { IncomingHttpHeaders } from 'node:http';
import { headerValue } from './headers.ts';
import { advisedWaitMs, retryAdviceOf } from './retryPolicy.ts';

/**
 * How long a pooled key rests after a 429. The gateway's wait when it states one: Retry-After
 * (OpenAI, Anthropic and LiteLLM send it) or Azure's `retry-after-ms`. Otherwise OpenAI's `x-ratelimit-reset-requests` and
 * `x-ratelimit-reset-tokens`, durations such as `1s`, `6m0s` or `20ms` ("time until the rate limit
 * resets", https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers): the longer
 * of the two, since either limit refuses. Otherwise a default: new-api's per-key request limit
 * answers 429 without either header, and counts per minute.
 */
export const DEFAULT_KEY_COOLDOWN_MS = 20_000;
/** A Retry-After of days (a daily quota) is honoured, but never past a day. */
const MAX_KEY_COOLDOWN_MS = 86_400_000;

export function rateLimitCooldownMs(headers: IncomingHttpHeaders, nowMs: number): number {
  const retryAfter = advisedWaitMs(retryAdviceOf(headers), nowMs);
  if (retryAfter !== null) return Math.min(retryAfter, MAX_KEY_COOLDOWN_MS);
  const resets = ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']
    .map((name) => parseResetDurationMs(headerValue(headers, name)))
    .filter((value): value is number => value !== null);
  return resets.length === 0 ? DEFAULT_KEY_COOLDOWN_MS : Math.min(Math.max(...resets), MAX_KEY_COOLDOWN_MS);
}

const DURATION_UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** `6m0s`, `1.5s`, `20ms`, `1h2m3s`: Go's time.Duration text, which OpenAI's headers use; null for anything else. */
export function parseResetDurationMs(value: string | null): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(text)) return null;
  let totalMs = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) totalMs += Number(part[1]) * (DURATION_UNIT_MS[part[2] ?? 's'] ?? 0);
  return Math.round(totalMs);
}
