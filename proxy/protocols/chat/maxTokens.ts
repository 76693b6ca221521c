import { errorObjectOf } from './errorObject.ts';

/**
 * The output bound of a chat request, a translated one's or a chat client's own. Chat's `max_tokens` is the name every chat gateway
 * knows, but OpenAI's reasoning models (o1, o3, o4-mini, gpt-5.x), on OpenAI and on Azure, take only
 * `max_completion_tokens` and refuse the request with a 400 naming `max_tokens`; DeepSeek, vLLM,
 * Ollama, DashScope and older relays know only `max_tokens`, or may ignore the other name, which
 * would lose the client's bound on what it pays. So `max_tokens` is sent, and a 400 refusing it,
 * which ran nothing and cost nothing, tells Airlock to send the request again with the bound renamed
 * and to write the model's later requests so from the start (forward/maxTokensRefusals.ts).
 */

const MAX_TOKENS_FIELD = 'max_tokens';
const MAX_COMPLETION_TOKENS_FIELD = 'max_completion_tokens';
/** The new name as a JSON key, for an edit of a client's own bytes (forward/bodyRewrite.ts). */
export const MAX_COMPLETION_TOKENS_KEY_JSON = JSON.stringify(MAX_COMPLETION_TOKENS_FIELD);

/** What the log says of a request sent again with the bound renamed. */
export const RESENT_WITH_MAX_COMPLETION_TOKENS_NOTE =
  'resent with max_completion_tokens for max_tokens: the gateway refused max_tokens for this model (400)';
/** What the log says of a client's request whose `max_tokens` Airlock renamed before sending, as learned from an earlier 400. */
export const SENT_WITH_MAX_COMPLETION_TOKENS_NOTE =
  'sent with max_completion_tokens for max_tokens: the gateway refused max_tokens for this model before (400)';
/** What the log says when the renamed request was refused again: the first 400 was about something else. */
export const RESENT_RENAMED_AND_REFUSED_AGAIN_NOTE =
  'resent with max_completion_tokens for max_tokens and refused again (400): the refusal was not of max_tokens, which is still sent';

/**
 * The bound as the chat body's first member (spread first into it), under `max_completion_tokens`
 * when the gateway refused `max_tokens` for the model; none without a bound. A refusal renames it
 * on the bytes as sent, as a client's own (forward/maxTokensRefusals.ts), nothing serialized again.
 */
export function outputBoundMember(bound: number | null, maxTokensRefused: boolean): Record<string, number> {
  if (bound === null) return {};
  return { [maxTokensRefused ? MAX_COMPLETION_TOKENS_FIELD : MAX_TOKENS_FIELD]: bound };
}

/**
 * A 400 that refuses `max_tokens` itself: the error's `param` names it with OpenAI's
 * `unsupported_parameter`, or its message says it is not supported (or unsupported) and names
 * `max_completion_tokens` (a relay passing OpenAI's words on in its own shape, with its own code:
 * caozhiyuan/copilot-api#164). A body that merely holds the name is no refusal: `max_tokens` too
 * large for the model (param named, no such code), the parameters a model takes listed, the request
 * quoted in an error about something else; nor is the other way round (`max_completion_tokens`
 * refused, `max_tokens` asked for).
 */
export function refusesMaxTokens(status: number, bodyText: string): boolean {
  if (status !== 400 || !bodyText.includes(MAX_TOKENS_FIELD)) return false;
  const error = errorObjectOf(bodyText);
  if (error !== null && error['param'] === MAX_TOKENS_FIELD && error['code'] === 'unsupported_parameter') return true;
  const message = error === null ? bodyText : error['message'];
  return typeof message === 'string' && NOT_SUPPORTED.test(message) && message.includes(MAX_COMPLETION_TOKENS_FIELD);
}

/** "'max_tokens' is not supported", "max_tokens is unsupported": the name bare, or in quotes or backticks. */
const NOT_SUPPORTED = new RegExp(`(?<![\\w.])['"\`]?${MAX_TOKENS_FIELD}['"\`]? (?:is|are) (?:not supported|unsupported)`, 'i');

/**
 * A chat body Airlock writes itself (the window's Test, the capability check) with its `max_tokens`
 * renamed, for a gateway that refused the name; null when the body has none.
 */
export function chatBodyWithMaxCompletionTokens(body: Readonly<Record<string, unknown>>): Record<string, unknown> | null {
  if (!(MAX_TOKENS_FIELD in body)) return null;
  const { [MAX_TOKENS_FIELD]: bound, ...rest } = body;
  return { [MAX_COMPLETION_TOKENS_FIELD]: bound, ...rest };
}
