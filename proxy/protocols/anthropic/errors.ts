import type { ErrorClass } from '../../contracts/errors.ts';
import { buildClientError } from '../../core/errorClass.ts';
import type { ProtocolErrors } from '../adapter.ts';
import { sseFrame } from '../sse.ts';
import { promptTooLongWords } from './promptTooLong.ts';

/**
 * Errors in Anthropic's shape, for clients that speak Messages (Claude Code, the Anthropic SDK).
 * Their retry logic keys on the status: 429 and 529 (overloaded) and other 5xx are retried.
 */

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'request_too_large'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
}

/** Anthropic's own status for "overloaded", which its clients back off from and retry. */
export const ANTHROPIC_OVERLOADED_STATUS = 529;

/** The status each of Anthropic's error types stands for (https://docs.anthropic.com/en/api/errors; the SDK's ErrorType lists them). */
export const ANTHROPIC_STATUS_OF_TYPE: Readonly<Record<AnthropicErrorType, number>> = {
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
const TYPE_OF_STATUS = new Map(Object.entries(ANTHROPIC_STATUS_OF_TYPE).map(([type, status]) => [status, type as AnthropicErrorType]));

/** The type Anthropic's API gives a status; another 4xx is a request it refuses, another 5xx its own failure. */
export function anthropicErrorType(status: number): AnthropicErrorType {
  return TYPE_OF_STATUS.get(status) ?? (status >= 400 && status < 500 ? 'invalid_request_error' : 'api_error');
}

export function anthropicErrorBody(status: number, message: string): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicErrorType(status), message } };
}

/**
 * The status to answer an Anthropic client with. The upstream's status is kept, except that a
 * 503 (service unavailable) or 529 from the upstream is "overloaded" and becomes 529 — that is
 * the upstream saying so; a 429 stays a 429, since the gateway also uses it for quota and
 * balance. Failures without an upstream status map by class: timeouts 504, other breaks 502.
 */
export function anthropicStatusFor(errorClass: ErrorClass, upstreamStatus: number | null): number {
  if (upstreamStatus === 503 || upstreamStatus === ANTHROPIC_OVERLOADED_STATUS) return ANTHROPIC_OVERLOADED_STATUS;
  if (upstreamStatus !== null && upstreamStatus >= 400) return upstreamStatus;
  switch (errorClass) {
    case 'timeout_connect':
    case 'timeout_idle':
    case 'timeout_total':
      return 504;
    case 'bad_request':
    case 'invalid_request':
      return 400;
    case 'auth':
    case 'client_unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'request_too_large':
      return 413;
    case 'model_not_found':
      return 404;
    case 'rate_limited':
      return 429;
    default:
      return 502;
  }
}

/** Anthropic's shape for every failure; the message is the one OpenAI-shaped clients get. */
export const anthropicErrors: ProtocolErrors = {
  status: anthropicStatusFor,
  // Anthropic's own error bodies carry the request id at the top level.
  // A context overflow leads with Anthropic's own words for it, which Claude Code acts on (promptTooLong.ts).
  body: (status, errorClass, detail) => ({
    ...anthropicErrorBody(
      status,
      withPromptTooLong(promptTooLongWords(errorClass, detail), buildClientError(errorClass, detail).error.message),
    ),
    ...(detail.upstreamRequestId ? { request_id: detail.upstreamRequestId } : {}),
  }),
  refusalBody: (refusal) => anthropicErrorBody(refusal.status, refusal.message),
  // Mid-stream, Anthropic sends an `error` event; its type is what a 502 would carry.
  streamFrame: (errorClass, detail) => sseFrame('error', anthropicErrorBody(502, buildClientError(errorClass, detail).error.message)),
  requestIdHeader: 'request-id',
  // Claude Code takes a reset mid-body for a connection error and resends it (unhappyTurns.test.ts).
  resetAnswerResent: true,
};

/** The message led by Anthropic's words for a context overflow, when there are any. */
export function withPromptTooLong(words: string | null, message: string): string {
  return words === null ? message : `${words} ${message}`;
}
