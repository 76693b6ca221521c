import type { DeclaredError } from '../adapter.ts';
import { errorMemberOf } from '../declaredError.ts';

/**
 * A Responses stream's failure: an `error` event, whose code and message OpenAI puts at the top
 * level (`{type:"error", code:"server_is_overloaded", message}`) and some relays inside an `error`
 * member, or `response.failed`, whose response holds the error.
 */
export function responsesErrorEventOf(json: Record<string, unknown>, type: string): DeclaredError {
  const failed = type === 'response.failed' && typeof json.response === 'object' && json.response !== null;
  const source = failed ? (json.response as Record<string, unknown>) : json;
  const member = errorMemberOf(source);
  if (member !== null) return member;
  const message = typeof source.message === 'string' ? source.message : type;
  return { message, code: typeof source.code === 'string' ? source.code : null, type: null, status: null };
}

/**
 * A Responses answer that is a failure: a response whose status is `failed` (its `error` says
 * why), or a body with an `error` and no output at all. A successful response carries `error: null`.
 */
export function responsesAnswerErrorOf(json: Record<string, unknown>): DeclaredError | null {
  if (json.error === null || json.error === undefined) return null;
  if (json.status !== 'failed' && Array.isArray(json.output)) return null;
  return errorMemberOf(json);
}
