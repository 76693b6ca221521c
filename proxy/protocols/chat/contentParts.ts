import { isRecord } from '../../core/isRecord.ts';
import { contentTexts } from '../messageText.ts';
import { thinkingFieldOf, type ReasoningField } from './returnedReasoning.ts';

/**
 * A chat message's or delta's `content`, read as its text and thinking. OpenAI's is a string;
 * Mistral's reasoning models (Magistral, and others asked for a reasoning_effort) give a list of
 * parts, streamed and whole: `thinking` parts holding text parts, and `text` parts
 * (https://docs.mistral.ai/capabilities/reasoning/, BerriAI/litellm#16272). Read as a string only,
 * their answer and thinking reached a translated client as nothing.
 */
export function contentOf(content: unknown): { text: string | null; thinking: string | null } {
  if (typeof content === 'string') return { text: content, thinking: null };
  if (!Array.isArray(content)) return { text: null, thinking: null };
  const thinking = content.flatMap((part) => {
    if (!isRecord(part) || part.type !== 'thinking') return [];
    return typeof part.thinking === 'string' ? [part.thinking] : contentTexts(part.thinking, 'textBlocks');
  });
  return { text: nonEmpty(contentTexts(content, 'textBlocks').join('')), thinking: nonEmpty(thinking.join('')) };
}

/**
 * A delta's or message's thinking and the field it came in: `reasoning_content` or `reasoning`,
 * else the thinking parts of its content, taken as `reasoning` so it never goes back to the gateway
 * (returnedReasoning.ts): Mistral does not take it back as a field. Null when it has none.
 */
export function chatThinkingOf(fields: Record<string, unknown> | null): { text: string; field: ReasoningField } | null {
  const field = thinkingFieldOf(fields);
  if (field !== null) return { text: fields?.[field] as string, field };
  const { thinking } = contentOf(fields?.content);
  return thinking === null ? null : { text: thinking, field: 'reasoning' };
}

const nonEmpty = (text: string): string | null => (text === '' ? null : text);
