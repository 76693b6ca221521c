import { describe, expect, it } from 'vitest';
import { redactedThinkingBytes, thinkingSignatureBytes } from '../../../proxy/protocols/anthropic/encryptedThinking.ts';

/** Bytes that are no text, of a length base64 pads (1 and 2 bytes over a multiple of 3), and with the bytes base64url spells `-` and `_`. */
const CIPHERTEXT = Buffer.from([...Array.from({ length: 700 }, (_, index) => (index * 37) % 256), 0xfb, 0xff, 0xfe]);

const redacted = (data: unknown): object => ({ type: 'redacted_thinking', data });

/**
 * A `redacted_thinking` block's `data` is base64 (Anthropic's extended thinking guide, "Thinking
 * redaction"): its size is counted as the bytes it decodes to, whatever form the base64 takes.
 */
describe('redactedThinkingBytes', () => {
  it.each([
    ['padded base64', CIPHERTEXT.subarray(0, 701).toString('base64')],
    ['base64 without its padding', CIPHERTEXT.subarray(0, 701).toString('base64').replace(/=+$/, '')],
    ['base64 of a length needing no padding', CIPHERTEXT.subarray(0, 702).toString('base64')],
    ['the URL-safe alphabet', CIPHERTEXT.toString('base64url')],
    // Whitespace decodes to nothing (as Buffer.from skips it): a relay that wraps or indents the data adds no thinking.
    ['base64 wrapped in lines of 76, as MIME writes it', (CIPHERTEXT.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n')],
    ['base64 with spaces and tabs', CIPHERTEXT.toString('base64').replace(/(.{10})/g, '$1 \t')],
  ])('counts the decoded bytes of %s', (_, data) => {
    expect(redactedThinkingBytes(redacted(data))).toBe(Buffer.from(data, 'base64').length);
    expect(redactedThinkingBytes(redacted(data))).toBeGreaterThan(0);
  });

  it.each([
    ['no data', { type: 'redacted_thinking' }],
    ['data that is no string', redacted(12345)],
    ['data that is null', redacted(null)],
    ['empty data', redacted('')],
    ['a thinking block', { type: 'thinking', thinking: 'hm', data: CIPHERTEXT.toString('base64') }],
    ['no block at all', 'redacted_thinking'],
    ['null', null],
  ])('counts 0 for %s', (_, block) => {
    expect(redactedThinkingBytes(block)).toBe(0);
  });
});

/** A thinking block's `signature` is base64 as redacted data is (Bedrock's Claude guide, "Thinking encryption"). */
describe('thinkingSignatureBytes', () => {
  it('counts the decoded bytes of a signature, whitespace left out', () => {
    const wrapped = (CIPHERTEXT.toString('base64').match(/.{1,76}/g) ?? []).join('\n');
    expect(thinkingSignatureBytes(wrapped)).toBe(CIPHERTEXT.length);
    expect(thinkingSignatureBytes(CIPHERTEXT.toString('base64url'))).toBe(CIPHERTEXT.length);
  });

  it.each([undefined, null, 42, { data: 'abc' }, ''])('counts 0 for a signature that is %o', (signature) => {
    expect(thinkingSignatureBytes(signature)).toBe(0);
  });
});
