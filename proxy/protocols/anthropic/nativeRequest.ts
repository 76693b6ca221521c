import { isRecord } from '../../core/isRecord.ts';
import type { NativeRequestCleanup } from '../adapter.ts';
import { AIRLOCK_MARK_PREFIX, isAirlockMark } from '../chat/returnedReasoning.ts';
import { chatCallId, SIGNED_ID_SEPARATOR } from '../chat/thoughtSignature.ts';

/**
 * A Messages request going to a gateway natively, after earlier turns of its session were
 * translated: the thinking blocks Airlock made then carry its mark, or (made before every block was
 * marked) an empty signature, and Anthropic refuses a signature it cannot verify (its docs: thinking
 * blocks go back complete and unmodified, signature included). They are left out; a block with a
 * real signature goes as it came. An assistant turn left with nothing goes too (Anthropic refuses
 * an empty content). Tool ids that carry a Gemini thought signature (thoughtSignature.ts) go back to
 * the gateway's own, in the call and its result alike: gateways on Bedrock cap a tool id at 64
 * characters (its ToolUseBlock reference), and only a translated request gives the signature back.
 */
export const anthropicNativeRequest: NativeRequestCleanup = {
  needles: [AIRLOCK_MARK_PREFIX, '"signature":""', '"signature": ""', SIGNED_ID_SEPARATOR].map((needle) => Buffer.from(needle)),
  clean(body) {
    const messages = body.messages;
    if (!Array.isArray(messages)) return null;
    let dropped = 0;
    let unsigned = 0;
    const kept: unknown[] = [];
    for (const message of messages) {
      if (!isRecord(message) || !Array.isArray(message.content)) {
        kept.push(message);
        continue;
      }
      const content = message.content.filter((block: unknown) => !isUnverifiableThinking(block));
      const droppedHere = message.content.length - content.length;
      dropped += droppedHere;
      let unsignedHere = 0;
      const unsignedContent = content.map((block: unknown) => {
        const plain = withGatewayToolId(block);
        if (plain !== block) unsignedHere += 1;
        return plain;
      });
      unsigned += unsignedHere;
      if (droppedHere === 0 && unsignedHere === 0) kept.push(message);
      else if (content.length > 0) kept.push({ ...message, content: unsignedContent });
    }
    if (dropped === 0 && unsigned === 0) return null;
    const notes = [
      ...(dropped > 0 ? [`dropped ${dropped} thinking blocks Airlock made under translation`] : []),
      ...(unsigned > 0 ? [`gave ${unsigned} tool ids their gateway's form, without a thought signature`] : []),
    ];
    return { body: { ...body, messages: kept }, note: notes.join('; ') };
  },
};

function isUnverifiableThinking(block: unknown): boolean {
  if (!isRecord(block) || block.type !== 'thinking') return false;
  return isAirlockMark(block.signature) || block.signature === '' || block.signature === undefined;
}

/**
 * A tool_use or tool_result block with its id as the gateway gave it; the block itself when Airlock
 * signed none (a gateway's own id may hold the separator: thoughtSignature.ts).
 */
function withGatewayToolId(block: unknown): unknown {
  if (!isRecord(block)) return block;
  const idField = block.type === 'tool_use' ? 'id' : block.type === 'tool_result' ? 'tool_use_id' : null;
  const id = idField === null ? undefined : block[idField];
  if (idField === null || typeof id !== 'string') return block;
  const gatewayId = chatCallId(id);
  return gatewayId === id ? block : { ...block, [idField]: gatewayId };
}
