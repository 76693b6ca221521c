import { isRecord } from '../../core/isRecord.ts';

/**
 * The bytes of a `redacted_thinking` block's thinking, 0 for any other block. Anthropic returns
 * thinking its safety systems flagged encrypted, in `data` (base64): there is no text to count,
 * yet the model wrote those tokens and they are billed as output. The ciphertext's size follows the
 * thinking's, so its decoded bytes stand for it (base64's third taken off).
 */
export function redactedThinkingBytes(block: unknown): number {
  if (!isRecord(block) || block.type !== 'redacted_thinking' || typeof block.data !== 'string') return 0;
  return Buffer.byteLength(block.data, 'base64');
}
