import { isRecord } from '../../core/isRecord.ts';
import type { DeclaredError } from '../adapter.ts';
import { errorMemberOf } from '../declaredError.ts';

/**
 * The error of a choice that ended with one: OpenRouter's schema gives each choice an optional
 * `error` of its own beside `finish_reason: "error"`, streamed and whole
 * (https://openrouter.ai/docs/api-reference/overview). Without it the choice read as an answer that
 * had ended, and a cut answer as a whole one.
 */
export function choiceErrorOf(choices: unknown): DeclaredError | null {
  if (!Array.isArray(choices)) return null;
  for (const choice of choices) {
    const error = isRecord(choice) && choice.finish_reason === 'error' ? errorMemberOf(choice) : null;
    if (error !== null) return error;
  }
  return null;
}
