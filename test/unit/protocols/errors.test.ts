import { describe, expect, it } from 'vitest';
import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import { anthropicErrorBody, anthropicStatusFor } from '../../../proxy/protocols/anthropic/errors.ts';

describe('anthropicErrorBody', () => {
  it.each([
    [400, 'invalid_request_error'],
    // Anthropic's own type for a 413 (its API errors reference).
    [413, 'request_too_large'],
    [401, 'authentication_error'],
    // An empty balance, Airlock's budget refusal included, and a gateway's timeout: Anthropic's own types for them.
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [504, 'timeout_error'],
    [529, 'overloaded_error'],
  ])('status %i -> %s', (status, type) => {
    expect(anthropicErrorBody(status, 'why and how to fix')).toEqual({ type: 'error', error: { type, message: 'why and how to fix' } });
  });
});

describe('anthropicStatusFor', () => {
  it.each<[ErrorClass, number | null, number]>([
    ['upstream_error', 503, 529],
    ['upstream_error', 529, 529],
    ['rate_limited', 429, 429],
    ['upstream_error', 502, 502],
    ['bad_request', 400, 400],
    ['auth', 401, 401],
    ['model_not_found', 404, 404],
    ['timeout_idle', null, 504],
    ['timeout_connect', null, 504],
    ['network', null, 502],
    ['stream_interrupted', null, 502],
    ['html_instead_of_json', null, 502],
    ['invalid_request', null, 400],
    ['request_too_large', null, 413],
    ['client_unauthorized', null, 401],
    ['forbidden', null, 403],
  ])('%s with upstream status %s -> %i', (errorClass, upstreamStatus, expected) => {
    expect(anthropicStatusFor(errorClass, upstreamStatus)).toBe(expected);
  });
});
