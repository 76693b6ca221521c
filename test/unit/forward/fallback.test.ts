import { describe, expect, it } from 'vitest';
import type { LocalRefusal } from '../../../proxy/contracts/ports.ts';
import { decideFallback, unsentStep, type FallbackInput, type UnsentStep } from '../../../proxy/forward/fallback.ts';

const refusal = (errorClass: LocalRefusal['errorClass'], status: number): LocalRefusal => ({
  status,
  errorClass,
  message: `refused: ${errorClass}`,
});
const COOLING_STEP: UnsentStep = { kind: 'unsent', status: 429, errorClass: 'rate_limited', refusal: refusal('keys_cooling', 429) };

const chat: Omit<FallbackInput, 'failure'> = {
  method: 'POST',
  upstreamPath: 'chat/completions',
  hasIdempotencyKey: false,
  upstreamMayHaveRun: false,
  bytesSentToClient: false,
};
const videoCreation = { ...chat, upstreamPath: 'video/generations' };

describe('decideFallback', () => {
  it.each<[string, FallbackInput, boolean]>([
    ['a 429 rate limit', { ...chat, failure: { kind: 'status', status: 429, errorClass: 'rate_limited' } }, true],
    ['a 503', { ...chat, failure: { kind: 'status', status: 503, errorClass: 'upstream_error' } }, true],
    ['a 500', { ...chat, failure: { kind: 'status', status: 500, errorClass: 'upstream_error' } }, true],
    ["Anthropic's 529 overloaded", { ...chat, failure: { kind: 'status', status: 529, errorClass: 'upstream_error' } }, true],
    ["a gateway's 504", { ...chat, failure: { kind: 'status', status: 504, errorClass: 'timeout_total' } }, true],
    ['a connect timeout', { ...chat, failure: { kind: 'network', errorClass: 'timeout_connect', mayHaveRun: false } }, true],
    [
      'an idle timeout before the first byte',
      { ...chat, failure: { kind: 'network', errorClass: 'timeout_idle', mayHaveRun: true } },
      true,
    ],
    ['a refused connection', { ...chat, failure: { kind: 'network', errorClass: 'network', mayHaveRun: false } }, true],
    ['a reset after the request was written', { ...chat, failure: { kind: 'network', errorClass: 'network', mayHaveRun: true } }, false],
    ['the total timeout', { ...chat, failure: { kind: 'network', errorClass: 'timeout_total', mayHaveRun: true } }, false],
    ['an empty balance', { ...chat, failure: { kind: 'status', status: 429, errorClass: 'quota_exhausted' } }, false],
    ['a missing model', { ...chat, failure: { kind: 'status', status: 503, errorClass: 'model_not_found' } }, false],
    ['a rejected key', { ...chat, failure: { kind: 'status', status: 401, errorClass: 'auth' } }, false],
    ['a bad request', { ...chat, failure: { kind: 'status', status: 400, errorClass: 'bad_request' } }, false],
    ['a 408', { ...chat, failure: { kind: 'status', status: 408, errorClass: 'timeout_total' } }, false],
    [
      'a 503 after part of the answer reached the client',
      { ...chat, bytesSentToClient: true, failure: { kind: 'status', status: 503, errorClass: 'upstream_error' } },
      false,
    ],
    [
      'a video creation without an idempotency key',
      { ...videoCreation, failure: { kind: 'status', status: 429, errorClass: 'rate_limited' } },
      false,
    ],
    [
      'a keyed video creation that certainly did not run',
      { ...videoCreation, hasIdempotencyKey: true, failure: { kind: 'status', status: 429, errorClass: 'rate_limited' } },
      true,
    ],
    [
      'a keyed video creation that may have run',
      {
        ...videoCreation,
        hasIdempotencyKey: true,
        upstreamMayHaveRun: true,
        failure: { kind: 'status', status: 503, errorClass: 'upstream_error' },
      },
      false,
    ],
    [
      'a GET of a task after a reset (idempotent)',
      {
        ...chat,
        method: 'GET',
        upstreamPath: 'video/generations/t1',
        failure: { kind: 'network', errorClass: 'network', mayHaveRun: true },
      },
      true,
    ],
    ['a pool held at admission, every key cooling', { ...chat, failure: COOLING_STEP }, true],
    ['a video creation without an idempotency key, its pool held', { ...videoCreation, failure: COOLING_STEP }, false],
    [
      'a keyed video creation, its pool held (nothing was sent)',
      { ...videoCreation, hasIdempotencyKey: true, failure: COOLING_STEP },
      true,
    ],
  ])('%s', (_label, input, fallBack) => {
    const decision = decideFallback(input);
    expect(decision.fallBack).toBe(fallBack);
    if (!decision.fallBack) expect(decision.reason.length).toBeGreaterThan(10);
  });
});

describe('unsentStep', () => {
  it.each<[string, LocalRefusal, UnsentStep | null]>([
    ['every key of the pool cooling after 429s stands for a 429 rate limit', refusal('keys_cooling', 429), COOLING_STEP],
    ['every key of the pool rejected is final, like a rejected key', refusal('circuit_open', 403), null],
    ['a profile without a key is the user’s to fix', refusal('no_key', 403), null],
    ['a budget refusal is not the profile being held', refusal('budget_exceeded', 402), null],
  ])('%s', (_label, given, expected) => {
    expect(unsentStep(given)).toEqual(expected);
  });
});
