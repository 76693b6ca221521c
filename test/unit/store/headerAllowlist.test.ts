import { describe, expect, it } from 'vitest';
import { isAllowedHeader, pickAllowedHeaders } from '../../../proxy/core/headerAllowlist.ts';

describe('header allowlist', () => {
  it.each([
    ['content-type', true],
    ['Content-Type', true],
    ['user-agent', true],
    ['anthropic-version', true],
    ['anthropic-beta', true],
    ['openai-beta', true],
    ['x-request-id', true],
    ['x-stainless-lang', true],
    ['X-Stainless-Runtime-Version', true],
    ['x-ratelimit-remaining-requests', true],
    ['retry-after', true],
    ['accept', true],
    ['authorization', false],
    ['Authorization', false],
    ['x-api-key', false],
    ['cookie', false],
    ['set-cookie', false],
    ['proxy-authorization', false],
    ['x-custom-secret', false],
  ])('%s allowed: %s', (name, allowed) => {
    expect(isAllowedHeader(name)).toBe(allowed);
  });

  it('keeps only allowlisted headers, lower-cased and sorted', () => {
    const picked = pickAllowedHeaders({
      Authorization: 'Bearer abc',
      'User-Agent': 'OpenAI/JS 6.0',
      'x-api-key': 'k',
      Cookie: 'a=b',
      'Content-Type': 'application/json',
    });
    expect(picked).toEqual({ 'content-type': 'application/json', 'user-agent': 'OpenAI/JS 6.0' });
    expect(Object.keys(picked)).toEqual(['content-type', 'user-agent']);
  });

  it('keeps, of names differing only in case, the one sorting last', () => {
    expect(pickAllowedHeaders({ 'content-type': 'lower', 'Content-Type': 'upper', accept: 'a' })).toEqual({
      accept: 'a',
      'content-type': 'lower',
    });
    expect(pickAllowedHeaders({ Accept: 'upper', accept: 'lower' })).toEqual({ accept: 'lower' });
  });
});
