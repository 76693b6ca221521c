import type { UpstreamErrorClass } from '../contracts/errors.ts';
import { buildClientError, classifyUpstreamResponse } from '../core/errorClass.ts';
import type { DeclaredError } from './adapter.ts';
import { namesContextOverflow, type GatewaySaid } from './contextOverflow.ts';

/**
 * A gateway that says "failed" with HTTP 200. Real relays do, so a 200 is not a success until its
 * body says so:
 * - OpenRouter answers with the error's own status only for an invalid request or missing
 *   credits; once the model started, the status is 200 and the error `{error:{code,message}}`
 *   (code the HTTP status as a number) is the body, or, in a stream, a chunk carrying `error` and
 *   a choice with `finish_reason: "error"` (https://openrouter.ai/docs/api/reference/errors-and-debugging,
 *   and its "Streaming Error Formats").
 * - One API answered every error with 200 until mid-2023, so a streaming OpenAI SDK could not
 *   catch a wrong key (https://github.com/songquanpeng/one-api/issues/193).
 * - LiteLLM's proxy sent an error at a stream's first chunk as a 200 event stream
 *   (https://github.com/BerriAI/litellm/issues/6629, fixed by /pull/18757 in 2026); vLLM and
 *   sglang send `data: {"error":…}` (code the status as a number) in a 200 stream, vLLM then
 *   `[DONE]` (https://github.com/BerriAI/litellm/issues/40578, /pull/25505).
 * - Anthropic's own streams are 200 and may carry only `event: error` (`overloaded_error`)
 *   (https://github.com/Helicone/helicone/pull/4678); OpenAI's Responses streams may end in an
 *   `error` event (`server_is_overloaded`) instead of `response.completed`
 *   (https://github.com/editor-code-assistant/eca/pull/559).
 * Each protocol folder reads its shape (its adapter's readAnswer and stream observer); this file
 * reads the `error` member they share and turns what was read into a class and a message.
 */

/** The `error` member of an answer or event as gateways send it (a string, or an object with a message), or null. */
export function errorMemberOf(json: Record<string, unknown>, status: number | null = null): DeclaredError | null {
  const error = json.error;
  if (typeof error === 'string') return { message: error, code: textOf(json.code), type: null, status: status ?? statusOf(json.code) };
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return null;
  const fields = error as Record<string, unknown>;
  const message = textOf(fields.message) ?? JSON.stringify(error);
  return { message, code: textOf(fields.code), type: textOf(fields.type), status: status ?? statusOf(fields.code) };
}

/**
 * An OpenAI-shaped answer that is only an error: an `error` member, and otherwise no more than an
 * error envelope carries (a request id, a success flag, a code). An answer that has anything else
 * (a task whose `status` is failed, embeddings) is an answer, whatever it says.
 */
export function openAiAnswerErrorOf(json: Record<string, unknown>): DeclaredError | null {
  if (json.error === null || json.error === undefined) return null;
  if (!Object.keys(json).every((key) => ERROR_ENVELOPE_KEYS.has(key))) return null;
  return errorMemberOf(json);
}

const ERROR_ENVELOPE_KEYS = new Set(['error', 'request_id', 'success', 'code', 'message', 'msg', 'type', 'param']);

/**
 * The class the error would have had with the status it stands for; without one, what its code
 * and words say (an empty balance, a rejected key, a model the key may not use, a rate limit),
 * else `upstream_error`.
 */
export function declaredErrorClass(error: DeclaredError): UpstreamErrorClass {
  // A chunk cut short is a relay's copy of the stream broken, not the model failing.
  if (error.brokeOff === true) return 'stream_interrupted';
  const bodyText = JSON.stringify({ error: { message: error.message, code: error.code, type: error.type } });
  const errorClass =
    classifyUpstreamResponse({ status: error.status ?? 200, contentType: 'application/json', bodyText, expectJson: true }) ??
    'upstream_error';
  // Without a status, OpenAI's `context_length_exceeded` or the words of an overflow still say the
  // prompt was refused: a failure of the model's would have a client resend a prompt that cannot fit.
  if (error.status === null && errorClass === 'upstream_error' && namesContextOverflow(declaredErrorSaid(error))) return 'bad_request';
  return errorClass;
}

/** What a declared error said: its words, and its code (its type where it has none), as each reader of it takes them. */
export function declaredErrorSaid(error: DeclaredError): GatewaySaid {
  const code = error.code ?? error.type;
  return { upstreamMessage: error.message, ...(code !== null ? { errorCode: code } : {}) };
}

/**
 * Where the error came: as the whole body, or as an event of a stream, after part of the answer
 * (its text, reasoning or a tool call) or as all of it.
 */
export type DeclaredErrorPlace = 'body' | 'stream' | 'stream after output';

const PLACE_WORDS: Record<DeclaredErrorPlace, string> = {
  body: 'The gateway answered HTTP 200, but its body is an error, not an answer',
  stream: 'The gateway answered HTTP 200, but its stream carried an error, not an answer',
  'stream after output': 'The gateway answered HTTP 200, but its stream ended with an error after part of the answer',
};

/** The log's message: where the error came, then its cause and fix (known secrets removed). */
export function declaredFailureMessage(
  errorClass: UpstreamErrorClass,
  error: DeclaredError,
  place: DeclaredErrorPlace,
  knownSecrets: readonly string[],
): string {
  return `${PLACE_WORDS[place]}. ${declaredErrorExplained(errorClass, error, knownSecrets)}`;
}

/** The cause and fix as a client error says them, with what the gateway said (known secrets removed). */
export function declaredErrorExplained(errorClass: UpstreamErrorClass, error: DeclaredError, knownSecrets: readonly string[]): string {
  const explained = buildClientError(errorClass, { ...declaredErrorSaid(error), knownSecrets: [...knownSecrets] });
  // Not a 401: a relay that answers 200 often speaks of its own key for the provider behind it.
  return errorClass === 'auth' ? `${DECLARED_AUTH_NOTE} ${explained.error.message}` : explained.error.message;
}

const DECLARED_AUTH_NOTE =
  'A rejected key named inside an HTTP 200 is often the gateway’s own key for the provider behind it, not yours: if your other requests succeed, the gateway has to fix it (Airlock keeps sending your key).';

/** An HTTP error status carried as the error's code: OpenRouter's and vLLM's number, LiteLLM's string. */
function statusOf(code: unknown): number | null {
  const status = typeof code === 'number' ? code : typeof code === 'string' && /^\d{3}$/.test(code) ? Number(code) : null;
  return status !== null && status >= 400 && status <= 599 ? status : null;
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return null;
}
