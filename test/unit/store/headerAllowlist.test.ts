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

describe('pickAllowedHeaders', () => {
  it.each<[string, Record<string, string>, Record<string, string>]>([
    ['nothing allowed', { authorization: 'Bearer abc', cookie: 'a=b' }, {}],
    ['a prefix', { 'X-RateLimit-Remaining': '9', 'x-api-key': 'k' }, { 'x-ratelimit-remaining': '9' }],
    // Sorted as sent, 'Content-Type' before 'content-type': the later spelling's value stays.
    ['two spellings of one name', { 'content-type': 'text/plain', 'Content-Type': 'application/json' }, { 'content-type': 'text/plain' }],
    ['a repeated header (an array) dropped', { accept: ['a', 'b'] as unknown as string, 'user-agent': 'ua' }, { 'user-agent': 'ua' }],
  ])('%s', (_label, headers, picked) => {
    expect(pickAllowedHeaders(headers)).toEqual(picked);
  });

  it('orders names as the built-in sort does, whatever order they came in', () => {
    const names = ['X-Stainless-Lang', 'accept', 'Accept', 'user-agent', 'x-request-id', 'Content-Type', 'content-type', 'x-stainless-os'];
    // Every rotation and its reverse: each name arrives first, last and between.
    for (let shift = 0; shift < names.length; shift += 1) {
      for (const arrived of [
        [...names.slice(shift), ...names.slice(0, shift)],
        [...names.slice(shift), ...names.slice(0, shift)].reverse(),
      ]) {
        const headers = Object.fromEntries(arrived.map((name, index) => [name, `v${index}`]));
        const expected: Record<string, string> = {};
        for (const name of [...arrived].sort()) expected[name.toLowerCase()] = headers[name] as string;
        const picked = pickAllowedHeaders(headers);
        expect(picked).toEqual(expected);
        expect(Object.keys(picked)).toEqual(Object.keys(expected));
      }
    }
  });

  it('decides the same for a name seen many times as for one seen once', () => {
    for (let round = 0; round < 3; round += 1) {
      expect(pickAllowedHeaders({ Authorization: 'Bearer abc', 'User-Agent': 'ua' })).toEqual({ 'user-agent': 'ua' });
    }
  });

  it('decides names past the remembered bound the same way', () => {
    const many = Object.fromEntries(Array.from({ length: 600 }, (_, index) => [`x-custom-${index}`, 'v']));
    expect(pickAllowedHeaders(many)).toEqual({});
    expect(pickAllowedHeaders({ ...many, 'x-stainless-lang': 'js', 'X-Request-Id': 'abc' })).toEqual({
      'x-request-id': 'abc',
      'x-stainless-lang': 'js',
    });
  });
});
