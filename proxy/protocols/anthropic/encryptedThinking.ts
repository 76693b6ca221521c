import { isRecord } from '../../core/isRecord.ts';

/** Whitespace a relay may wrap or indent base64 with: it decodes to nothing. */
const WHITESPACE = /\s/;
const WHITESPACE_RUNS = /\s+/g;
const PADDING = /=+$/;

/**
 * The characters of base64 `data` (standard or URL-safe, padded or not) that carry data: whitespace and
 * padding taken out, the whitespace only when there is any (a search of the string, no copy in the usual
 * case). Counted so, the pieces of one base64 text add up to the whole's count wherever it was split.
 */
export function base64DataChars(data: string): number {
  const compact = WHITESPACE.test(data) ? data.replace(WHITESPACE_RUNS, '') : data;
  const padding = PADDING.exec(compact.slice(-2));
  return compact.length - (padding?.[0].length ?? 0);
}

/** The bytes `chars` base64 data characters decode to (4 characters to 3 bytes), without decoding them. */
export function base64DataBytes(chars: number): number {
  return Math.floor((chars * 3) / 4);
}

function base64DecodedBytes(data: string): number {
  return base64DataBytes(base64DataChars(data));
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
