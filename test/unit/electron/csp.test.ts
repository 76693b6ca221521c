import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, withContentSecurityPolicy } from '../../../electron/logic/csp.ts';

function directives(policy: string): Map<string, string> {
  return new Map(
    policy.split('; ').map((directive) => {
      const [name, ...values] = directive.split(' ');
      return [name ?? '', values.join(' ')];
    }),
  );
}

describe('contentSecurityPolicy', () => {
  const policy = directives(contentSecurityPolicy({ proxyOrigin: 'http://127.0.0.1:8642' }));

  it.each([
    ['default-src', "'none'"],
    ['script-src', "'self'"],
    ['style-src', "'self'"],
    ['img-src', "'self' data:"],
    ['connect-src', 'http://127.0.0.1:8642'],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-ancestors', "'none'"],
    ['frame-src', "'none'"],
  ])('%s is exactly %s', (name, value) => {
    expect(policy.get(name)).toBe(value);
  });

  it('never allows inline or evaluated script', () => {
    const text = contentSecurityPolicy({ proxyOrigin: 'http://127.0.0.1:8642', allowInlineStyles: true });
    expect(directives(text).get('script-src')).toBe("'self'");
    expect(text).not.toContain('unsafe-eval');
  });

  it('adds inline styles only when asked', () => {
    expect(directives(contentSecurityPolicy({ proxyOrigin: 'http://127.0.0.1:1', allowInlineStyles: true })).get('style-src')).toBe(
      "'self' 'unsafe-inline'",
    );
  });

  it.each([
    'https://127.0.0.1:8642',
    'http://example.com:80',
    'http://127.0.0.1',
    'http://127.0.0.1:1; script-src *',
    'http://127.0.0.1:8642/',
  ])('refuses the non-loopback or malformed origin %s', (origin) => {
    expect(() => contentSecurityPolicy({ proxyOrigin: origin })).toThrow(/loopback/);
  });
});

describe('withContentSecurityPolicy', () => {
  it.each([
    [undefined, { 'Content-Security-Policy': ['P'] }],
    [{ 'content-type': 'text/html' }, { 'content-type': ['text/html'], 'Content-Security-Policy': ['P'] }],
    [{ 'content-security-policy': ['default-src *'] }, { 'Content-Security-Policy': ['P'] }],
    [
      { 'Content-Security-Policy-Report-Only': 'x', 'X-A': ['1', '2'] },
      { 'X-A': ['1', '2'], 'Content-Security-Policy': ['P'] },
    ],
  ])('from %j makes %j', (headers, expected) => {
    expect(withContentSecurityPolicy(headers, 'P')).toEqual(expected);
  });
});
