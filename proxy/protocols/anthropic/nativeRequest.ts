import { isRecord } from '../../core/isRecord.ts';
import type { NativeRequestCleanup } from '../adapter.ts';
import { AIRLOCK_MARK_PREFIX, isAirlockMark } from '../chat/returnedReasoning.ts';

/**
 * A Messages request going to a gateway natively, after earlier turns of its session were
 * translated: the thinking blocks Airlock made then carry its mark, or (made before every block was
 * marked) an empty signature, and Anthropic refuses a signature it cannot verify (its docs: thinking
 * blocks go back complete and unmodified, signature included). They are left out; a block with a
 * real signature goes as it came. An assistant turn left with nothing goes too (Anthropic refuses
 * an empty content).
 */
export const anthropicNativeRequest: NativeRequestCleanup = {
  needles: [AIRLOCK_MARK_PREFIX, '"signature":""', '"signature": ""'].map((needle) => Buffer.from(needle)),
  clean(body) {
    const messages = body.messages;
    if (!Array.isArray(messages)) return null;
    let dropped = 0;
    const kept: unknown[] = [];
    for (const message of messages) {
      if (!isRecord(message) || !Array.isArray(message.content)) {
        kept.push(message);
        continue;
      }
      const content = message.content.filter((block: unknown) => !isUnverifiableThinking(block));
      const droppedHere = message.content.length - content.length;
      dropped += droppedHere;
      if (droppedHere === 0) kept.push(message);
      else if (content.length > 0) kept.push({ ...message, content });
    }
    if (dropped === 0) return null;
    return { body: { ...body, messages: kept }, note: `dropped ${dropped} thinking blocks Airlock made under translation` };
  },
};

function isUnverifiableThinking(block: unknown): boolean {
  if (!isRecord(block) || block.type !== 'thinking') return false;
  return isAirlockMark(block.signature) || block.signature === '' || block.signature === undefined;
}
