import type { DeclaredError } from '../adapter.ts';
import { errorMemberOf } from '../declaredError.ts';
import { ANTHROPIC_STATUS_OF_TYPE, type AnthropicErrorType } from './errors.ts';

/**
 * Anthropic's error `{type:"error", error:{type,message}}`, as a whole answer or as an `error`
 * event; a relay in front of it may answer the Messages path with an OpenAI-shaped `{error:{…}}`
 * instead, which is read the same way. null for anything else (a message, a count).
 */
export function anthropicErrorOf(json: Record<string, unknown>): DeclaredError | null {
  if (json.type !== undefined && json.type !== 'error') return null;
  const error = json.error as { type?: unknown } | undefined;
  const type = typeof error?.type === 'string' ? error.type : '';
  return errorMemberOf(json, type in ANTHROPIC_STATUS_OF_TYPE ? ANTHROPIC_STATUS_OF_TYPE[type as AnthropicErrorType] : null);
}
