import type { DeclaredError } from '../adapter.ts';
import { errorMemberOf } from '../declaredError.ts';
import { ANTHROPIC_OVERLOADED_STATUS, type AnthropicErrorType } from './errors.ts';

/** The status each of Anthropic's error types stands for (https://docs.anthropic.com/en/api/errors). */
const STATUS_OF_TYPE: Record<AnthropicErrorType, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: ANTHROPIC_OVERLOADED_STATUS,
};

/**
 * Anthropic's error `{type:"error", error:{type,message}}`, as a whole answer or as an `error`
 * event; a relay in front of it may answer the Messages path with an OpenAI-shaped `{error:{…}}`
 * instead, which is read the same way. null for anything else (a message, a count).
 */
export function anthropicErrorOf(json: Record<string, unknown>): DeclaredError | null {
  if (json.type !== undefined && json.type !== 'error') return null;
  const error = json.error as { type?: unknown } | undefined;
  const type = typeof error?.type === 'string' ? error.type : '';
  return errorMemberOf(json, type in STATUS_OF_TYPE ? STATUS_OF_TYPE[type as AnthropicErrorType] : null);
}
