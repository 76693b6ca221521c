import { describe, expect, it } from 'vitest';
import { KeyMasker } from '../../../proxy/core/keyMasker.ts';
import { findSentinel, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../support/sentinel.ts';
import { splitBySizes } from '../../simulator/chatReply.ts';

/** A key pool's masker: every key of the pool, whichever the request was sent with. */
const masker = KeyMasker.forKeys([SENTINEL_KEY, SECOND_SENTINEL_KEY]);
const leaks = (text: string): Array<string | null> => [findSentinel(text), findSentinel(text, SECOND_SENTINEL_KEY)];

describe('KeyMasker.forKeys (a key pool)', () => {
  it.each([
    ['both raw', `${SENTINEL_KEY} and ${SECOND_SENTINEL_KEY}`],
    ['the second URL-encoded', encodeURIComponent(SECOND_SENTINEL_KEY)],
    ['the second in base64', Buffer.from(`x${SECOND_SENTINEL_KEY}`).toString('base64')],
    ['the first in a Bearer header', `Bearer ${SENTINEL_KEY}`],
  ])('masks %s in text and bytes', (_label, text) => {
    expect(leaks(masker.maskText(text))).toEqual([null, null]);
    expect(leaks(masker.maskBytes(Buffer.from(text)).toString('latin1'))).toEqual([null, null]);
  });

  it('masks either key streamed a few characters a delta', () => {
    for (const key of [SENTINEL_KEY, SECOND_SENTINEL_KEY]) {
      const stream = masker.textStream();
      const pieces = splitBySizes(`the key is ${key}, done`, [2, 3]);
      const whole = [...pieces.map((piece) => stream.push(piece)), stream.end()].join('');
      expect(leaks(whole)).toEqual([null, null]);
      expect(whole).toContain(', done');
    }
  });

  it('masks header values holding either key', () => {
    const headers: Record<string, string | string[]> = { 'x-request-id': `req_${SECOND_SENTINEL_KEY}`, via: [`a ${SENTINEL_KEY}`] };
    expect(masker.maskHeaders(headers)).toBe(true);
    expect(leaks(JSON.stringify(headers))).toEqual([null, null]);
  });

  it('a one-key masker leaves the other key alone: a pool needs forKeys', () => {
    expect(findSentinel(KeyMasker.for(SENTINEL_KEY).maskText(SECOND_SENTINEL_KEY), SECOND_SENTINEL_KEY)).not.toBeNull();
  });
});
