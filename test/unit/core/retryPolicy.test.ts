import { describe, expect, it } from 'vitest';
import { decideRetry, parseRetryAfterMs, type AttemptOutcome, type RetryInput } from '../../../proxy/forward/retryPolicy.ts';

const NOW_MS = Date.parse('2026-01-01T00:00:00Z');
const status = (code: number, retryAfter: string | null = null): AttemptOutcome => ({ kind: 'status', status: code, retryAfter });
const network = (
  errorClass: 'network' | 'timeout_connect' | 'timeout_idle' | 'timeout_total' | 'stream_interrupted',
  mayHaveExecuted: boolean,
): AttemptOutcome => ({
  kind: 'network',
  errorClass,
  mayHaveExecuted,
});

function input(overrides: Partial<RetryInput>): RetryInput {
  return {
    retriesSoFar: 0,
    method: 'POST',
    upstreamPath: 'chat/completions',
    outcome: status(503),
    bytesSentToClient: false,
    hasIdempotencyKey: false,
    clientRetries: false,
    policy: { maxRetries: 3, maxRetryAfterMs: 8000 },
    random: () => 0,
    nowMs: NOW_MS,
    ...overrides,
  };
}

describe('decideRetry: when', () => {
  it.each<[string, Partial<RetryInput>, boolean, RegExp | null]>([
    ['429', { outcome: status(429) }, true, null],
    ['502', { outcome: status(502) }, true, null],
    ['503', { outcome: status(503) }, true, null],
    ['a 504 to a chat POST: the model had it and may have billed it', { outcome: status(504) }, false, /may have run and billed/],
    ['a 504 to a GET', { method: 'GET', upstreamPath: 'models', outcome: status(504) }, true, null],
    ['a 504 to a POST with an idempotency key', { outcome: status(504), hasIdempotencyKey: true }, true, null],
    ['400 never', { outcome: status(400) }, false, /status 400/],
    ['401 never', { outcome: status(401) }, false, /status 401/],
    ['403 never', { outcome: status(403) }, false, /status 403/],
    ['404 never', { outcome: status(404) }, false, /status 404/],
    ['500 not in the list', { outcome: status(500) }, false, /status 500/],
    ['529 not in the list', { outcome: status(529) }, false, /status 529/],
    ['200 no', { outcome: status(200) }, false, /status 200/],
    ['after bytes reached the client', { outcome: status(503), bytesSentToClient: true }, false, /reached the client/],
    ['connect failure on a POST', { outcome: network('network', false) }, true, null],
    ['connect timeout on a POST', { outcome: network('timeout_connect', false) }, true, null],
    ['break after sending a POST', { outcome: network('network', true) }, false, /may have run and billed/],
    [
      'a certificate whose issuer no trusted CA vouches for, on a GET',
      { method: 'GET', outcome: { kind: 'network', errorClass: 'network', mayHaveExecuted: false, code: 'SELF_SIGNED_CERT_IN_CHAIN' } },
      false,
      /certificate/,
    ],
    [
      'an expired certificate, which the gateway may have renewed by the next try',
      { outcome: { kind: 'network', errorClass: 'network', mayHaveExecuted: false, code: 'CERT_HAS_EXPIRED' } },
      true,
      null,
    ],
    [
      'an HTTP proxy that refused the tunnel (its credentials or rules), on a GET',
      { method: 'GET', outcome: { kind: 'network', errorClass: 'network', mayHaveExecuted: false, code: 'proxy_refused' } },
      false,
      /proxy refused/,
    ],
    [
      'an HTTP proxy that could not reach the gateway',
      { outcome: { kind: 'network', errorClass: 'network', mayHaveExecuted: false, code: 'proxy_gateway_unreachable' } },
      true,
      null,
    ],
    [
      'idle timeout before any answer to a POST, like a gateway 504',
      { outcome: network('timeout_idle', true) },
      false,
      /may have run and billed/,
    ],
    [
      'idle timeout before any answer to a GET',
      { method: 'GET', upstreamPath: 'models', outcome: network('timeout_idle', true) },
      true,
      null,
    ],
    ['idle timeout on a POST with an idempotency key', { outcome: network('timeout_idle', true), hasIdempotencyKey: true }, true, null],
    [
      'idle timeout on an image creation without a key',
      { upstreamPath: 'images/generations', outcome: network('timeout_idle', true) },
      false,
      /idempotency key/,
    ],
    ['a client that retries by itself', { outcome: status(429, '1'), clientRetries: true }, false, /retries by itself/],
    [
      'a gateway that says x-should-retry: false (it already retried)',
      { outcome: { kind: 'status', status: 503, retryAfter: null, refusesRetry: true } },
      false,
      /x-should-retry: false/,
    ],
    [
      'an empty balance, whatever its status',
      { outcome: { kind: 'status', status: 429, retryAfter: null, errorClass: 'quota_exhausted' } },
      false,
      /final/,
    ],
    [
      'new-api 503 for a model without a channel',
      { outcome: { kind: 'status', status: 503, retryAfter: null, errorClass: 'model_not_found' } },
      false,
      /final/,
    ],
    ['break after sending a GET', { method: 'GET', upstreamPath: 'models', outcome: network('network', true) }, true, null],
    ['break after sending a POST with an idempotency key', { outcome: network('network', true), hasIdempotencyKey: true }, true, null],
    ['total timeout never', { method: 'GET', outcome: network('timeout_total', false) }, false, /timeout_total/],
    ['image creation POST', { upstreamPath: 'images/generations', outcome: status(503) }, false, /paid job/],
    ['image creation POST on 429', { upstreamPath: 'images/generations', outcome: status(429) }, false, /idempotency key/],
    ['video creation POST before sending', { upstreamPath: 'videos', outcome: network('network', false) }, false, /paid job/],
    ['image creation with an idempotency key', { upstreamPath: 'images/generations', hasIdempotencyKey: true }, true, null],
    ['retry 3 of 3', { retriesSoFar: 2 }, true, null],
    ['after 3 retries', { retriesSoFar: 3 }, false, /gave up after 3/],
    ['policy allows 1', { retriesSoFar: 1, policy: { maxRetries: 1, maxRetryAfterMs: 8000 } }, false, /limit 1/],
    ['a wait that would outlast the total timeout', { outcome: status(429, '5'), msLeft: 4000 }, false, /outlast the total timeout/],
    ['a backoff that would outlast the total timeout', { msLeft: 900 }, false, /outlast the total timeout/],
    ['a wait that ends before the total timeout', { outcome: status(429, '5'), msLeft: 5001 }, true, null],
    ['policy allows none', { policy: { maxRetries: 0, maxRetryAfterMs: 8000 } }, false, /limit 0/],
    ['policy over the contract cap of 3', { retriesSoFar: 3, policy: { maxRetries: 9, maxRetryAfterMs: 8000 } }, false, /limit 3/],
  ])('%s', (_label, overrides, retry, reason) => {
    const decision = decideRetry(input(overrides));
    expect(decision.retry).toBe(retry);
    if (reason) expect(!decision.retry && decision.reason).toMatch(reason);
  });
});

describe('decideRetry: a resend refused because it could bill twice', () => {
  it('is marked so only where the policy would have resent, so the row notes it only then', () => {
    expect(decideRetry(input({ outcome: status(504) }))).toMatchObject({ retry: false, mayHaveRun: true });
    expect(decideRetry(input({ outcome: network('timeout_idle', true), retriesSoFar: 1 }))).toMatchObject({
      retry: false,
      mayHaveRun: true,
    });
    const overTheLimit = decideRetry(input({ outcome: status(504), policy: { maxRetries: 0, maxRetryAfterMs: 8000 } }));
    expect(overTheLimit).toEqual({ retry: false, reason: 'gave up after 0 retries (limit 0)' });
    expect(decideRetry(input({ outcome: status(400) }))).not.toHaveProperty('mayHaveRun');
  });
});

describe('decideRetry: how long', () => {
  it.each<[string, Partial<RetryInput>, number]>([
    ['first wait', { retriesSoFar: 0 }, 1000],
    ['second wait', { retriesSoFar: 1 }, 2000],
    ['third wait', { retriesSoFar: 2 }, 4000],
    ['full jitter', { retriesSoFar: 0, random: () => 0.999999 }, 1250],
    ['half jitter on the third', { retriesSoFar: 2, random: () => 0.5 }, 4500],
    ['shorter Retry-After ignored', { outcome: status(429, '0') }, 1000],
    ['longer Retry-After in seconds', { outcome: status(429, '3') }, 3000],
    ['Retry-After with spaces', { outcome: status(429, ' 2 ') }, 2000],
    ['Retry-After as an HTTP date', { outcome: status(503, new Date(NOW_MS + 5000).toUTCString()) }, 5000],
    ['Retry-After date in the past', { outcome: status(503, new Date(NOW_MS - 5000).toUTCString()) }, 1000],
    ['unreadable Retry-After', { outcome: status(429, 'soon') }, 1000],
    ['Retry-After at the cap', { outcome: status(429, '8') }, 8000],
    ['retry-after-ms (Azure OpenAI)', { outcome: { kind: 'status', status: 429, retryAfter: null, retryAfterMs: '2500' } }, 2500],
    ['retry-after-ms read before Retry-After', { outcome: { kind: 'status', status: 429, retryAfter: '1', retryAfterMs: '3200.4' } }, 3200],
    ['unreadable retry-after-ms: Retry-After', { outcome: { kind: 'status', status: 429, retryAfter: '3', retryAfterMs: '-5' } }, 3000],
  ])('%s', (_label, overrides, delayMs) => {
    expect(decideRetry(input(overrides))).toEqual({ retry: true, delayMs });
  });

  it.each([
    ['seconds', '9'],
    ['an HTTP date', new Date(NOW_MS + 60_000).toUTCString()],
  ])('a Retry-After in %s past maxRetryAfterMs goes back to the client', (_label, retryAfter) => {
    const decision = decideRetry(input({ outcome: status(429, retryAfter) }));
    expect(decision.retry).toBe(false);
    expect(!decision.retry && decision.reason).toMatch(/maxRetryAfterMs \(8000 ms\); the client decides/);
  });

  it('a retry-after-ms past maxRetryAfterMs goes back to the client, whatever Retry-After says', () => {
    const decision = decideRetry(input({ outcome: { kind: 'status', status: 429, retryAfter: '1', retryAfterMs: '30000' } }));
    expect(decision.retry).toBe(false);
    expect(!decision.retry && decision.reason).toMatch(/maxRetryAfterMs \(8000 ms\); the client decides/);
  });
});

describe('parseRetryAfterMs', () => {
  it.each<[string | null, number | null]>([
    [null, null],
    ['120', 120_000],
    ['1.5', 1500],
    ['-1', null],
    ['', null],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
    ['garbage', null],
  ])('%j -> %s', (retryAfter, expected) => {
    expect(parseRetryAfterMs(retryAfter, NOW_MS)).toBe(expected);
  });
});
