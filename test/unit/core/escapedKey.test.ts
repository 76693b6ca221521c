import { describe, expect, it } from 'vitest';
import { holdsEscapedKey, maskedJsonValue } from '../../../proxy/core/escapedKey.ts';
import { KeyMasker } from '../../../proxy/core/keyMasker.ts';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const masker = KeyMasker.for(SENTINEL_KEY);
const escapeEvery = (text: string): string =>
  [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join('');

describe('holdsEscapedKey', () => {
  it.each([
    ['its dashes as \\u002d', `{"m":"${SENTINEL_KEY.replaceAll('-', '\\u002d')}"}`],
    ['every character as an upper-case \\u escape', `{"m":"${escapeEvery(SENTINEL_KEY)}"}`],
  ])('finds the key written with %s', (_name, json) => {
    expect(holdsEscapedKey(masker, json)).toBe(true);
  });

  it('finds a key holding / written as \\/', () => {
    const slashKey = 'sk-or/v1/0123456789abcdef';
    expect(holdsEscapedKey(KeyMasker.for(slashKey), `{"m":"${slashKey.replaceAll('/', '\\/').replace('-', '\\u002d')}"}`)).toBe(true);
  });

  it('reads no further a text without escapes, or with escapes that spell no key', () => {
    expect(holdsEscapedKey(masker, `{"m":"a line\\nand \\"quotes\\""}`)).toBe(false);
    expect(holdsEscapedKey(masker, `{"m":"caf\\u00e9 sk\\u002dairlock"}`)).toBe(false);
  });
});

describe('maskedJsonValue', () => {
  it('masks every string and name, and keeps the rest as it was', () => {
    const value = { id: 7, ok: true, none: null, [SENTINEL_KEY]: [`a ${SENTINEL_KEY} b`, 1.5, { deep: SENTINEL_KEY }] };
    expect(maskedJsonValue(masker, value)).toEqual({
      id: 7,
      ok: true,
      none: null,
      [REDACTED]: [`a ${REDACTED} b`, 1.5, { deep: REDACTED }],
    });
  });
});
