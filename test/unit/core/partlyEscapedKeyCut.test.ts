import { describe, expect, it } from 'vitest';
import { KeyMasker } from '../../../proxy/core/keyMasker.ts';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A key escaped only in part (its dashes percent-encoded, as `%2D`; its first characters as written),
 * cut where its written start ends: the piece before the cut holds no escape character and goes to
 * the raw forms' stream, which holds `sk`; the next piece must be read with that start, or neither
 * reading holds the whole key. Found in review: the key reached the client and the live feed.
 */
const masker = KeyMasker.for(SENTINEL_KEY);

describe('a key escaped in part, cut where its written start ends', () => {
  it.each([
    ['its dashes percent-encoded', SENTINEL_KEY.replaceAll('-', '%2D')],
    ['its dashes as \\u002d', SENTINEL_KEY.replaceAll('-', '\\u002d')],
    ['its dashes as HTML references', SENTINEL_KEY.replaceAll('-', '&#45;')],
  ])('%s: field text comes out masked whole, wherever the cut falls', (_name, escaped) => {
    const text = `curl "https://api.example/v1?key=${escaped}" done`;
    const leaked: number[] = [];
    for (let cut = 1; cut < text.length; cut += 1) {
      const pieces = masker.textStream();
      const passed = pieces.push(text.slice(0, cut)) + pieces.push(text.slice(cut)) + pieces.end();
      if (passed !== `curl "https://api.example/v1?key=${REDACTED}" done`) leaked.push(cut);
    }
    expect(leaked).toEqual([]);
  });

  it.each([
    ['its dashes percent-encoded', SENTINEL_KEY.replaceAll('-', '%2D')],
    [
      'every other character as \\u',
      [...SENTINEL_KEY].map((char, index) => (index % 2 === 0 ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)).join(''),
    ],
    ['its dashes as HTML references', SENTINEL_KEY.replaceAll('-', '&#x2d;')],
  ])('%s: a piece of 1 to 4 characters at a time, from every start, comes out masked whole', (_name, escaped) => {
    const text = `see ${escaped} and a clean tail`;
    for (let size = 1; size <= 4; size += 1) {
      for (let offset = 0; offset < size; offset += 1) {
        const pieces = masker.textStream();
        let passed = pieces.push(text.slice(0, offset));
        for (let at = offset; at < text.length; at += size) passed += pieces.push(text.slice(at, at + size));
        passed += pieces.end();
        expect(passed, `pieces of ${size} from ${offset}`).toBe(`see ${REDACTED} and a clean tail`);
      }
    }
  });

  it('passes text with escapes but no key byte for byte, wherever it is cut', () => {
    const text = 'a 50%2D50 split, x &amp; y, \\u0041 and sk-not-the-key';
    for (let cut = 0; cut <= text.length; cut += 1) {
      const pieces = masker.textStream();
      expect(pieces.push(text.slice(0, cut)) + pieces.push(text.slice(cut)) + pieces.end()).toBe(text);
    }
  });
});
