import { describe, expect, it } from 'vitest';
import { holdsEscapedKey, maskEscapedKey } from '../../../proxy/core/escapedKey.ts';
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

  it('takes an escaped backslash before u002d for the text it is, not for an escape', () => {
    const text = JSON.stringify({ m: SENTINEL_KEY.replaceAll('-', '\\u002d') });
    expect(JSON.parse(text).m).not.toContain(SENTINEL_KEY);
    expect(holdsEscapedKey(masker, text)).toBe(false);
  });
});

describe('maskEscapedKey', () => {
  it('masks the key in every string and keeps the rest of the JSON meaning what it meant', () => {
    const value = {
      id: 7,
      ok: true,
      none: null,
      quote: '"\\\u00e9\n',
      [SENTINEL_KEY]: [`a ${SENTINEL_KEY} b`, 1.5, { deep: SENTINEL_KEY }],
    };
    const escaped = JSON.stringify(value).replaceAll('-', '\\u002d').replaceAll('\u00e9', '\\u00e9');
    expect(JSON.parse(maskEscapedKey(masker, escaped))).toEqual({
      id: 7,
      ok: true,
      none: null,
      quote: '"\\\u00e9\n',
      [REDACTED]: [`a ${REDACTED} b`, 1.5, { deep: REDACTED }],
    });
  });

  it('keeps a quote or a backslash escaped, and works on the start of a JSON text cut short', () => {
    const text = `{"m":"\\u0022${SENTINEL_KEY.replaceAll('-', '\\u002d')}\\u005c`;
    expect(maskEscapedKey(masker, text)).toBe(`{"m":"\\u0022${REDACTED}\\u005c`);
  });
});
