import { isRecord } from '../../core/isRecord.ts';

/** Whitespace a relay may wrap or indent base64 with: it decodes to nothing. */
const WHITESPACE = /\s/;
const WHITESPACE_RUNS = /\s+/g;

/**
 * The bytes `data` (base64, standard or URL-safe, padded or not) decodes to, without decoding it.
 * Buffer.byteLength's base64 count is a length formula that counts whitespace as data: it is taken
 * out first, only when there is any (a search of the string, no copy in the usual case).
 */
function base64DecodedBytes(data: string): number {
  const compact = WHITESPACE.test(data) ? data.replace(WHITESPACE_RUNS, '') : data;
  return Buffer.byteLength(compact, 'base64');
}

/**
 * The bytes of a `redacted_thinking` block's thinking, 0 for any other block. Anthropic returns
 * thinking its safety systems flagged encrypted, in `data` (base64): there is no text to count,
 * yet the model wrote those tokens and they are billed as output. The ciphertext's size follows the
 * thinking's, so its decoded bytes stand for it (base64's third taken off).
 */
export function redactedThinkingBytes(block: unknown): number {
  if (!isRecord(block) || block.type !== 'redacted_thinking' || typeof block.data !== 'string') return 0;
  return base64DecodedBytes(block.data);
}

/**
 * The bytes of a thinking block's `signature` (base64), 0 when it has none. Claude 4 models return
 * their thinking summarized or omitted, the full thinking encrypted in the signature (Bedrock's Claude
 * guide, "Thinking encryption"), and bill all of it: its decoded size stands for that thinking as
 * redacted thinking's does. Claude 3.7 shows its full thinking with a short signature.
 */
export function thinkingSignatureBytes(signature: unknown): number {
  return typeof signature === 'string' ? base64DecodedBytes(signature) : 0;
}
