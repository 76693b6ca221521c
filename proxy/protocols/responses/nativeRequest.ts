import { isRecord } from '../../core/isRecord.ts';
import type { NativeRequestCleanup } from '../adapter.ts';
import { AIRLOCK_MARK_PREFIX, isAirlockMark } from '../chat/returnedReasoning.ts';
import { chatCallId, SIGNED_ID_SEPARATOR } from '../chat/thoughtSignature.ts';

/**
 * A Responses request going to a gateway natively, after earlier turns of its session were
 * translated: the reasoning items Airlock made then carry its mark in `encrypted_content`, which
 * OpenAI refuses as `invalid_encrypted_content` (codex#8145) and vLLM refuses outright ("Encrypted
 * content is not supported", vllm#28248). They are left out. Call ids that carry a Gemini thought
 * signature (thoughtSignature.ts) go back to the gateway's own: OpenAI refuses a `call_id` over 64
 * characters (openai/codex#14355), and only a translated request gives the signature back. Other
 * items go as they came.
 */
export const responsesNativeRequest: NativeRequestCleanup = {
  needles: [Buffer.from(AIRLOCK_MARK_PREFIX), Buffer.from(SIGNED_ID_SEPARATOR)],
  clean(body) {
    const input = body.input;
    if (!Array.isArray(input)) return null;
    const kept = input.filter((item: unknown) => !(isRecord(item) && item.type === 'reasoning' && isAirlockMark(item.encrypted_content)));
    const dropped = input.length - kept.length;
    let unsigned = 0;
    const cleaned = kept.map((item: unknown) => {
      if (!isRecord(item) || typeof item.call_id !== 'string') return item;
      // A gateway's own id may hold the separator: only an id Airlock signed changes (thoughtSignature.ts).
      const gatewayId = chatCallId(item.call_id);
      if (gatewayId === item.call_id) return item;
      unsigned += 1;
      return { ...item, call_id: gatewayId };
    });
    if (dropped === 0 && unsigned === 0) return null;
    const notes = [
      ...(dropped > 0 ? [`dropped ${dropped} reasoning items Airlock made under translation`] : []),
      ...(unsigned > 0 ? [`gave ${unsigned} call ids their gateway's form, without a thought signature`] : []),
    ];
    return { body: { ...body, input: cleaned }, note: notes.join('; ') };
  },
};
