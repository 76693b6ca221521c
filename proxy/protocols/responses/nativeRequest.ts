import { isRecord } from '../../core/isRecord.ts';
import type { NativeRequestCleanup } from '../adapter.ts';
import { AIRLOCK_MARK_PREFIX, isAirlockMark } from '../chat/returnedReasoning.ts';

/**
 * A Responses request going to a gateway natively, after earlier turns of its session were
 * translated: the reasoning items Airlock made then carry its mark in `encrypted_content`, which
 * OpenAI refuses as `invalid_encrypted_content` (codex#8145) and vLLM refuses outright ("Encrypted
 * content is not supported", vllm#28248). They are left out; other items go as they came.
 */
export const responsesNativeRequest: NativeRequestCleanup = {
  needles: [Buffer.from(AIRLOCK_MARK_PREFIX)],
  clean(body) {
    const input = body.input;
    if (!Array.isArray(input)) return null;
    const kept = input.filter((item: unknown) => !(isRecord(item) && item.type === 'reasoning' && isAirlockMark(item.encrypted_content)));
    const dropped = input.length - kept.length;
    if (dropped === 0) return null;
    return { body: { ...body, input: kept }, note: `dropped ${dropped} reasoning items Airlock made under translation` };
  },
};
