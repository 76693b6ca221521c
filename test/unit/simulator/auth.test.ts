import { describe, expect, it } from 'vitest';
import { isAuthorized, maskAuthorization, maskSecret, maskSecretHeaders } from '../../simulator/auth.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const KEYS = [SENTINEL_KEY];

describe('isAuthorized', () => {
  it.each([
    ['exact Bearer form', `Bearer ${SENTINEL_KEY}`, true],
    ['missing header', undefined, false],
    ['empty header', '', false],
    ['key without scheme', SENTINEL_KEY, false],
    ['doubled Bearer', `Bearer Bearer ${SENTINEL_KEY}`, false],
    ['no space', `Bearer${SENTINEL_KEY}`, false],
    ['two spaces', `Bearer  ${SENTINEL_KEY}`, false],
    ['double quotes', `Bearer "${SENTINEL_KEY}"`, false],
    ['single quotes', `Bearer '${SENTINEL_KEY}'`, false],
    ['leading whitespace', ` Bearer ${SENTINEL_KEY}`, false],
    ['trailing whitespace', `Bearer ${SENTINEL_KEY} `, false],
    ['trailing newline', `Bearer ${SENTINEL_KEY}\n`, false],
    ['lowercase scheme', `bearer ${SENTINEL_KEY}`, false],
    ['truncated key', `Bearer ${SENTINEL_KEY.slice(0, -1)}`, false],
    ['other key', 'Bearer sk-other', false],
  ])('%s -> %s', (_name, header, expected) => {
    expect(isAuthorized(header, KEYS)).toBe(expected);
  });

  it('accepts any of several valid keys', () => {
    expect(isAuthorized('Bearer sk-second', [SENTINEL_KEY, 'sk-second'])).toBe(true);
  });
});

describe('masking', () => {
  it.each([
    [SENTINEL_KEY, 'sk-…a8c1'],
    ['short-key-123', '…-123'],
    ['tiny', '…'],
    ['12345678', '…'],
  ])('maskSecret(%s) = %s', (secret, expected) => {
    expect(maskSecret(secret)).toBe(expected);
  });

  it.each([
    [`Bearer ${SENTINEL_KEY}`, 'Bearer sk-…a8c1'],
    [`Bearer Bearer ${SENTINEL_KEY}`, 'Bearer Bea…a8c1'],
    [`Bearer${SENTINEL_KEY}`, 'Bea…a8c1'],
    [`Bearer  ${SENTINEL_KEY}`, 'Bearer  sk-…a8c1'],
  ])('maskAuthorization keeps the header form: %s', (value, expected) => {
    expect(maskAuthorization(value)).toBe(expected);
  });

  it('masks every secret-bearing header and leaves the rest', () => {
    const masked = maskSecretHeaders({
      authorization: `Bearer ${SENTINEL_KEY}`,
      'x-api-key': SENTINEL_KEY,
      'api-key': SENTINEL_KEY,
      'proxy-authorization': `Basic ${SENTINEL_KEY}`,
      'content-type': 'application/json',
    });
    expect(JSON.stringify(masked)).not.toContain(SENTINEL_KEY.slice(4, -4));
    expect(masked['content-type']).toBe('application/json');
    expect(masked.authorization).toBe('Bearer sk-…a8c1');
  });
});
